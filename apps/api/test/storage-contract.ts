/**
 * The storage contract: what every implementation of WorkbenchStorage must do, registered as describe/it blocks by
 * `storageContract(name, open)`. `open` gives a fresh, empty store each time (one per describe block here) and
 * how to close it. storage.test.ts runs it on a SQLite file; a PostgreSQL store runs it the same way.
 */

import { bundledTask, NOT_STATED } from "@decision-workbench/datasets";
import { OrderedState } from "@decision-workbench/scorer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisData } from "../src/analysis/data.js";
import { type Headline, headlineOf } from "../src/analysis/headline.js";
import { inferSpec, taskSpecs } from "../src/analysis/item-spec.js";
import { itemDataOf } from "../src/analysis/matrix.js";
import { topView } from "../src/analysis/views.js";
import { AlreadyStored } from "../src/storage/errors.js";
import { CHUNK_ROWS, columnsOf, type ItemColumns, labelAt } from "../src/storage/item-columns.js";
import { itemValues, valueColumns } from "../src/storage/item-values.js";
import {
  type ExampleResult,
  type ExampleRow,
  emptyCounters,
  type PredictionRow,
  type ServerRow,
  type UploadRow,
  type WorkbenchStorage,
} from "../src/storage/types.js";
import { storedRun, syntheticTask } from "./fixtures.js";

/** An open store and how to close it. */
export interface OpenedStorage {
  storage: WorkbenchStorage;
  close(): Promise<void>;
}

const run = storedRun;

/** One decision of item `single` (one label of a, b) or `multi` (a list of a, b), of the given status. */
function prediction(
  runId: string,
  exampleId: string,
  item: string,
  status: PredictionRow["status"],
): PredictionRow {
  return {
    runId,
    exampleId,
    split: "test",
    item,
    gold: item === "multi" ? ["a", "b"] : "a",
    status,
    answer: status === "answered" ? (item === "multi" ? ["a"] : "a") : null,
    confidence: status === "escalated" ? null : 0.75,
    probabilities: status === "escalated" ? null : { a: 0.75, b: 0.25 },
    logits: [Math.log(0.75), Math.log(0.25)],
    unknown: null,
    reason: status === "escalated" ? "the decision service did not answer after 3 attempts: HTTP 503" : null,
    record: {
      endpoint: "http://x/v1/decision",
      model: "m",
      ms: 12.5,
      questions: 2,
      usage: { input_tokens: 10 },
    },
    servedBy: "m-2",
  };
}

/** An answered example of items `single` (then `multi`) with the given statuses; its request took 10 * (ordinal + 1) ms. */
export function result(
  runId: string,
  exampleId: string,
  ordinal: number,
  statuses: PredictionRow["status"][],
): ExampleResult {
  return {
    runId,
    exampleId,
    ordinal,
    split: "test",
    ms: 10 * (ordinal + 1),
    servedBy: "m-2",
    inputTokens: 10,
    outputTokens: 2,
    reasoningTokens: 0,
    cost: 0.5,
    failed: statuses.every((s) => s === "escalated"),
    predictions: statuses.map((s, i) => prediction(runId, exampleId, i === 0 ? "single" : "multi", s)),
  };
}

/** Sets an example's split and who served it, on its predictions too. */
function placed(r: ExampleResult, split: ExampleResult["split"], servedBy: string | null): ExampleResult {
  r.split = split;
  r.servedBy = servedBy;
  for (const p of r.predictions) Object.assign(p, { split, servedBy });
  return r;
}

/** Each stored decision's analysis columns as plain values, row by row (what a test compares). */
export function rowsOf(c: ItemColumns) {
  return Array.from({ length: c.n }, (_, i) => ({
    ordinal: c.ordinal[i],
    exampleId: c.exampleIds.at(i),
    split: c.split[i],
    status: c.status[i],
    servedBy: c.served[i] < 0 ? null : c.servedNames[c.served[i]],
    confidence: Number.isNaN(c.confidence[i]) ? null : c.confidence[i],
    gold: labelAt(c.gold, c.goldLists, i),
    answer: labelAt(c.answer, c.answerLists, i),
    probs: c.hasProbs[i] ? Array.from(c.probs.subarray(i * c.rowK, (i + 1) * c.rowK)) : null,
  }));
}

/** An upload's header and examples: `states` as the examples' states (ids too), all on test. */
function upload(name: string, hash: string, states: string[]): [UploadRow, ExampleRow[]] {
  const examples = states.map((state) => ({ id: state, state, labels: {}, split: "test" as const }));
  const row = {
    name,
    task: { ...syntheticTask(name), items: [] },
    hash,
    examples: examples.length,
    splits: { train: 0, calibration: 0, test: examples.length },
    createdAt: new Date().toISOString(),
  };
  return [row, examples];
}

/** A server row of the contract tests. */
export function server(id: string, extra: Partial<ServerRow> = {}): ServerRow {
  return {
    id,
    name: `server ${id}`,
    baseUrl: "http://127.0.0.1:9",
    baseUrlSecret: "sealed-url",
    endpoint: "http://127.0.0.1:9/v1/decision",
    models: ["m", "m-2"],
    apiKeySecret: null,
    extraBody: { temperature: 0 },
    timeout: 30,
    retries: 2,
    backoff: 0.5,
    deterministic: true,
    requestsPerMinute: null,
    inputTokensPerMinute: 6000,
    inputPricePerMillion: 0.25,
    outputPricePerMillion: null,
    embedded: false,
    createdAt: "2026-01-01T00:00:00.000Z",
    ...extra,
  };
}

/** Registers the contract's tests on the stores `open` gives. */
export function storageContract(name: string, open: () => Promise<OpenedStorage>): void {
  describe(`${name} storage: the contract`, () => {
    let opened: OpenedStorage;
    let storage: WorkbenchStorage;

    beforeAll(async () => {
      opened = await open();
      storage = opened.storage;
    });

    afterAll(async () => {
      await opened?.close();
    });

    /** The analysis columns of one item of a run, compared as plain values. */
    const values = async (runId: string, item: string, splits?: ("train" | "calibration" | "test")[]) => {
      const specs = (await storage.getRun(runId))?.items ?? [];
      const index = specs.findIndex((s) => s.name === item);
      expect(index).toBeGreaterThanOrEqual(0);
      return rowsOf(await storage.itemColumns(runId, index, splits));
    };

    /** What `values` must read for the stored predictions `rows` (of one item, in run order). */
    const expectedValues = async (runId: string, rows: PredictionRow[], ordinals: Map<string, number>) => {
      const specs = (await storage.getRun(runId))?.items ?? [];
      const spec = specs.find((s) => s.name === rows[0]?.item);
      if (!spec) throw new Error(`no spec of ${rows[0]?.item}`);
      const stored = rows.map((p) => itemValues(spec, { ...p, ordinal: ordinals.get(p.exampleId) ?? -1 }, p));
      return rowsOf(columnsOf(valueColumns(spec).length, stored));
    };

    describe("servers", () => {
      it("inserts, lists, reads, updates and deletes a server, every field kept", async () => {
        const a = server("srv_a");
        const b = server("srv_b", {
          createdAt: "2026-01-02T00:00:00.000Z",
          apiKeySecret: "sealed-key",
          requestsPerMinute: 60,
          inputTokensPerMinute: null,
          inputPricePerMillion: null,
          outputPricePerMillion: 1.5,
          deterministic: false,
          embedded: true,
          models: [],
          extraBody: {},
        });
        await storage.insertServer(b);
        await storage.insertServer(a);
        expect(await storage.listServers()).toEqual([a, b]); // by creation time
        expect(await storage.getServer("srv_b")).toEqual(b);
        expect(await storage.getServer("srv_none")).toBeUndefined();
        await expect(storage.insertServer(a)).rejects.toThrow();
        const changed = { ...a, name: "renamed", timeout: 5, models: ["x"], requestsPerMinute: 120 };
        await storage.updateServer({ ...changed, createdAt: "2030-01-01T00:00:00.000Z" });
        expect(await storage.getServer("srv_a")).toEqual(changed); // the creation time stays
        await storage.insertRun(run("run_of_a", { serverId: "srv_a" }));
        expect(await storage.countRunsOfServer("srv_a")).toBe(1);
        expect(await storage.countRunsOfServer("srv_b")).toBe(0);
        await storage.deleteServer("srv_b");
        expect((await storage.listServers()).map((s) => s.id)).toEqual(["srv_a"]);
        await storage.deleteRun("run_of_a");
        expect(await storage.countRunsOfServer("srv_a")).toBe(0);
      });
    });

    describe("uploaded datasets", () => {
      it("stores uploads with their examples, pages them and finds states by id", async () => {
        const task = {
          name: "up",
          description: "d",
          provenance: { source: "s", package: "p", licence: "l", labels: "x" },
          items: [],
        };
        const row = {
          name: "up",
          task,
          hash: "h",
          examples: 4,
          splits: { train: 1, calibration: 1, test: 2 },
          createdAt: "t",
          createdBy: "alice",
        };
        await storage.insertUpload(row, [
          { id: "a", state: "Alpha 100%", labels: { x: "y" }, split: "train" },
          { id: "b", state: { z: 1, a: 2 }, labels: {}, split: "test", meta: { m: 1 } },
          { id: "c", state: "gamma_x", labels: { t: ["p", "q"] }, split: "calibration" },
          // a state whose object lost its file's key order (integer keys come first in JavaScript)
          { id: "d", state: { 1: "a", 2: "b" }, stateJson: '{"2":"b","1":"a"}', labels: {}, split: "test" },
        ]);
        expect(await storage.getUpload("up")).toEqual(row);
        expect(await storage.listUploads()).toEqual([row]);
        expect((await storage.getTask("up"))?.name).toBe("up");
        const states = await storage.getStates("up", ["b", "c", "d", "zz"]);
        expect(Object.keys(states.get("b") as object)).toEqual(["z", "a"]);
        expect(states.get("c")).toBe("gamma_x");
        expect(states.get("d")).toEqual({ 1: "a", 2: "b" });
        expect(states.has("zz")).toBe(false);
        const wire = await storage.getWireStates("up", ["b", "d"]);
        expect(wire.get("b")).toEqual({ z: 1, a: 2 });
        const ordered = wire.get("d");
        expect(ordered).toBeInstanceOf(OrderedState);
        expect((ordered as OrderedState).json).toBe('{"2":"b","1":"a"}');
        expect(
          (await storage.pageExamples("up", { offset: 0, limit: 10, q: "100%" })).examples.map((e) => e.id),
        ).toEqual(["a"]);
        expect((await storage.pageExamples("up", { offset: 0, limit: 10, q: "ALPHA" })).total).toBe(1);
        expect((await storage.pageExamples("up", { offset: 0, limit: 10, q: "gam_a" })).total).toBe(0);
        const second = await storage.pageExamples("up", { offset: 1, limit: 1 });
        expect(second.examples.map((e) => e.id)).toEqual(["b"]);
        expect(second.total).toBe(4);
        const tests = await storage.pageExamples("up", { split: "test", offset: 0, limit: 5 });
        expect(tests.total).toBe(2);
        expect(tests.examples[0].meta).toEqual({ m: 1 });
        const all = await storage.allExamples("up");
        expect(all.map((e) => e.id)).toEqual(["a", "b", "c", "d"]);
        expect(all[2].labels).toEqual({ t: ["p", "q"] });
        expect((await storage.uploadWithExamples("up"))?.examples).toEqual(all);
        // the outline of some splits: each example's place in the upload and its split's index, no text
        const asked = ["test", "train"] as const;
        const outline = await storage.uploadOutline("up", asked);
        const places = all.flatMap((e, i) => ((asked as readonly string[]).includes(e.split) ? [i] : []));
        expect([...(outline?.ordinals ?? [])]).toEqual(places);
        expect([...(outline?.splits ?? [])]).toEqual(
          places.map((i) => asked.indexOf(all[i].split as "test")),
        );
        expect(await storage.uploadOutline("missing", asked)).toBeUndefined();
        expect(await storage.uploadExamplesAt("up", Int32Array.from([1, 2]))).toEqual(all.slice(1, 3));
        // only the ordinals asked for, however far apart; one the upload has not is left out
        expect(await storage.uploadExamplesAt("up", Int32Array.from([0, 2, 99]))).toEqual([all[0], all[2]]);
        await storage.insertRun(run("run_up", { dataset: "up" }));
        expect(await storage.countRunsOfDataset("up")).toBe(1);
        await storage.deleteRun("run_up");
        await storage.deleteUpload("up");
        expect(await storage.getTask("up")).toBeUndefined();
        expect(await storage.getUpload("up")).toBeUndefined();
        expect(await storage.allExamples("up")).toEqual([]);
        expect((await storage.getStates("up", ["a"])).size).toBe(0);
        expect((await storage.getTask("penguins"))?.name).toBe("penguins");
      });

      it("reads an upload with its examples, and a replaced upload's new examples", async () => {
        const ids = async () => (await storage.uploadWithExamples("kept"))?.examples.map((e) => e.id);
        await storage.insertUpload(...upload("kept", "h1", ["one", "two"]));
        const first = await storage.uploadWithExamples("kept");
        expect(first?.upload.hash).toBe("h1");
        // uploaded by no person's token: nobody's
        expect(first?.upload).not.toHaveProperty("createdBy");
        expect(first?.examples.map((e) => e.state)).toEqual(["one", "two"]);
        await storage.deleteUpload("kept");
        await storage.insertUpload(...upload("kept", "h2", ["three"]));
        expect(await ids()).toEqual(["three"]);
        // the same lines in another order have the same content hash
        await storage.deleteUpload("kept");
        await storage.insertUpload(...upload("kept", "h2", ["five", "four"]));
        expect(await ids()).toEqual(["five", "four"]);
        await storage.deleteUpload("kept");
        expect(await storage.uploadWithExamples("kept")).toBeUndefined();
      });

      it("hides an upload being stored until it is complete, and refuses its name meanwhile", async () => {
        const states = Array.from({ length: 20_000 }, (_, i) => `s${i}`);
        const [row, examples] = upload("slow", "h", states);
        let done = false;
        const storing = storage.insertUpload(row, examples).finally(() => {
          done = true;
        });
        // a read made while the upload is stored sees it hidden or, once its last commit is in (on PostgreSQL
        // that commit may land between two reads of one look, before insertUpload resolves), whole: never part
        let looks = 0;
        let hidden = 0;
        while (!done) {
          looks++;
          const got = await storage.getUpload("slow");
          const listed = (await storage.listUploads()).some((u) => u.name === "slow");
          const task = await storage.getTask("slow");
          const together = (await storage.uploadWithExamples("slow"))?.examples.length ?? 0;
          const all = (await storage.allExamples("slow")).length;
          const total = (await storage.pageExamples("slow", { offset: 0, limit: 5 })).total;
          const states = (await storage.getStates("slow", ["s0"])).size;
          for (const n of [together, all, total]) expect([0, 20_000]).toContain(n);
          const seen = [got, task].filter((x) => x !== undefined).length + (listed ? 1 : 0);
          if (seen + together + all + total + states === 0) hidden++;
          if (looks === 1)
            await expect(storage.insertUpload(...upload("slow", "h9", ["x"]))).rejects.toThrow();
          await new Promise((r) => setTimeout(r, 5));
        }
        await storing;
        expect(hidden).toBeGreaterThan(0);
        expect((await storage.getUpload("slow"))?.hash).toBe("h"); // the refused second upload changed nothing
        expect((await storage.allExamples("slow")).length).toBe(20_000);
        // a complete upload's name is refused too
        await expect(storage.insertUpload(...upload("slow", "h9", ["x"]))).rejects.toThrow();
        expect((await storage.pageExamples("slow", { offset: 0, limit: 1 })).total).toBe(20_000);
        // deleting hides it at once
        const deleting = storage.deleteUpload("slow");
        expect(await storage.getUpload("slow")).toBeUndefined();
        expect((await storage.pageExamples("slow", { offset: 0, limit: 1 })).total).toBe(0);
        await deleting;
        expect(await storage.allExamples("slow")).toEqual([]);
      });

      it("leaves nothing of an upload that fails part-way, and its name is free again", async () => {
        const states = Array.from({ length: 5_000 }, (_, i) => `f${i}`);
        const [row, examples] = upload("fails", "h", states);
        examples[4_000] = { ...examples[4_000], id: "f10" }; // a second example with the id f10
        await expect(storage.insertUpload(row, examples)).rejects.toThrow();
        expect(await storage.getUpload("fails")).toBeUndefined();
        expect(await storage.allExamples("fails")).toEqual([]);
        await storage.insertUpload(...upload("fails", "h2", ["ok"]));
        expect((await storage.allExamples("fails")).map((e) => e.id)).toEqual(["ok"]);
        await storage.deleteUpload("fails");
      });
    });

    describe("runs", () => {
      it("stores a run's item specs: its dataset's task, given ones, or read from its first decisions", async () => {
        await storage.insertRun(run("run_task"));
        expect((await storage.getRun("run_task"))?.items).toEqual(taskSpecs(bundledTask("penguins")));
        const given = [{ name: "single", kind: "choice" as const, options: ["b", "a"], notStated: true }];
        await storage.insertRun(run("run_given", { dataset: "gone", items: given }));
        expect((await storage.getRun("run_given"))?.items).toEqual(given);
        await storage.insertRun(run("run_gone", { dataset: "gone" }));
        expect((await storage.getRun("run_gone"))?.items).toEqual([]);
        const first = result("run_gone", "e0", 0, ["answered"]);
        await storage.recordExample(first);
        const later = result("run_gone", "e1", 1, ["answered", "answered"]);
        later.predictions[0].probabilities = { b: 0.5, a: 0.5 }; // the spec already stored is kept
        await storage.recordExample(later);
        expect((await storage.getRun("run_gone"))?.items).toEqual([
          inferSpec("single", [first.predictions[0]]),
          inferSpec("multi", [later.predictions[1]]),
        ]);
        expect((await storage.getRun("run_gone"))?.items?.[1].kind).toBe("multi");
        // the given spec orders the stored probabilities
        await storage.recordExample(result("run_given", "e0", 0, ["answered"]));
        const [v] = await values("run_given", "single");
        expect(v.probs).toEqual([0.25, 0.75, Number.NaN]);
        for (const id of ["run_task", "run_given", "run_gone"]) await storage.deleteRun(id);
      });

      it("writes what was computed from a run only while its status and finish time are as read", async () => {
        await storage.insertRun(run("run_moment"));
        const stats = { latency: { p50: 1, p90: 2, p99: 3 }, servedBy: ["m"] };
        // running, never finished: a null finish time matches null
        expect(
          await storage.updateRun("run_moment", { stats }, { status: "running", finishedAt: null }),
        ).toBe(true);
        expect((await storage.getStoredRun("run_moment"))?.stats).toEqual(stats);
        const done = { status: "done", finishedAt: "2100-01-01T00:00:00.000Z" } as const;
        await storage.updateRun("run_moment", { ...done, stats: null });
        const headline = { accuracy: 0.75, ece: 0.05 };
        // read while running, written once done: refused; read with another finish time: refused
        expect(
          await storage.updateRun("run_moment", { headline }, { status: "running", finishedAt: null }),
        ).toBe(false);
        expect(
          await storage.updateRun(
            "run_moment",
            { headline },
            { status: "done", finishedAt: "2099-01-01T00:00:00.000Z" },
          ),
        ).toBe(false);
        expect((await storage.getStoredRun("run_moment"))?.headline).toBeNull();
        expect(await storage.updateRun("run_moment", { headline }, done)).toBe(true);
        expect((await storage.getStoredRun("run_moment"))?.headline).toEqual(headline);
        await storage.deleteRun("run_moment");
      });

      it("updates, lists and deletes runs with their predictions and calibrations", async () => {
        await storage.insertRun(run("run_c", { dataset: "other", createdAt: "2100-01-01T00:00:00.000Z" }));
        await storage.insertRun(
          run("run_c2", { dataset: "other", serverId: "srv_2", createdAt: "2099-01-01T00:00:00.000Z" }),
        );
        await storage.updateRun("run_c", {
          status: "done",
          headline: { accuracy: 0.5, ece: 0.1 },
          stats: { latency: { p50: 1.5, p90: 2, p99: 9.5 }, servedBy: ["m", "m-2"] },
          ownerPid: null,
          finishedAt: "2100-01-01T00:01:00.000Z",
        });
        const stopped = {
          status: "stopped",
          stopReason: "budget",
          maxCost: 2.5,
          maxInputTokens: 1000,
          total: 7,
          ownerPid: 4242,
          error: "why",
          startedAt: "s",
        } as const;
        await storage.updateRun("run_c2", stopped);
        await storage.addActiveMs("run_c2", 125);
        await storage.addActiveMs("run_c2", 0.5);
        await storage.saveCalibration({ id: "cal_1", runId: "run_c", createdAt: "t", payload: { x: 1 } });
        expect((await storage.listRuns())[0].id).toBe("run_c");
        expect((await storage.listRuns()).slice(0, 2).map((r) => r.id)).toEqual(["run_c", "run_c2"]);
        expect((await storage.listRuns({ dataset: "other" })).map((r) => r.id)).toEqual(["run_c", "run_c2"]);
        expect((await storage.listRuns({ status: "done" })).map((r) => r.id)).toEqual(["run_c"]);
        expect((await storage.listStoredRuns({ serverId: "srv_2" })).map((r) => r.id)).toEqual(["run_c2"]);
        expect((await storage.listRuns({ dataset: "other", serverId: "srv_1" })).map((r) => r.id)).toEqual([
          "run_c",
        ]);
        expect(
          (await storage.listStoredRuns({ dataset: "other", status: "stopped" })).map((r) => r.id),
        ).toEqual(["run_c2"]);
        const c = await storage.getStoredRun("run_c");
        expect(c?.headline).toEqual({ accuracy: 0.5, ece: 0.1 });
        expect(c?.stats).toEqual({ latency: { p50: 1.5, p90: 2, p99: 9.5 }, servedBy: ["m", "m-2"] });
        expect(c?.finishedAt).toBe("2100-01-01T00:01:00.000Z");
        const c2 = await storage.getStoredRun("run_c2");
        expect(c2).toMatchObject({ ...stopped, serverName: "s", headline: null, stats: null });
        expect(c2?.counters).toEqual({ ...emptyCounters(), activeMs: 125.5 });
        expect((await storage.listCalibrations({ runId: "run_c" })).map((c) => c.payload)).toEqual([
          { x: 1 },
        ]);
        await storage.deleteRun("run_c");
        expect(await storage.getRun("run_c")).toBeUndefined();
        expect(await storage.getCalibration("cal_1")).toBeUndefined();
        expect((await storage.listRuns({ dataset: "other" })).map((r) => r.id)).toEqual(["run_c2"]);
        await storage.deleteRun("run_c2");
      });

      it("keeps every field of a run as inserted", async () => {
        const row = run("run_fields", {
          dataset: "gone",
          splits: ["calibration", "test"],
          maxLen: 4000,
          options: { temperature: 0, seed: 7 },
          limit: 50,
          maxCost: 1.25,
          total: 50,
          createdAt: "2026-03-01T00:00:00.000Z",
          items: [{ name: "single", kind: "yesno", options: ["yes", "no"], notStated: false }],
        });
        await storage.insertRun(row);
        expect(await storage.getStoredRun("run_fields")).toEqual(row);
        expect(await storage.getRun("run_fields")).toMatchObject({ id: "run_fields", options: row.options });
        await storage.deleteRun("run_fields");
      });

      it("keeps a run's name and note, sets and clears each on its own, and lists them", async () => {
        await storage.insertRun(run("run_named", { name: "before the swap", note: "vendor weights v1" }));
        await storage.insertRun(run("run_unnamed"));
        expect(await storage.getStoredRun("run_named")).toMatchObject({
          name: "before the swap",
          note: "vendor weights v1",
        });
        const unnamed = await storage.getStoredRun("run_unnamed");
        expect(unnamed).not.toHaveProperty("name");
        expect(unnamed).not.toHaveProperty("note");

        await storage.updateRun("run_unnamed", { name: "after the swap" });
        await storage.updateRun("run_named", { note: null });
        const named = await storage.getStoredRun("run_named");
        expect(named?.name).toBe("before the swap");
        expect(named).not.toHaveProperty("note");
        const listed = await storage.listStoredRuns();
        expect(listed.find((r) => r.id === "run_unnamed")).toMatchObject({ name: "after the swap" });
        expect(listed.find((r) => r.id === "run_unnamed")).not.toHaveProperty("note");

        // an update of one run leaves the other's name alone; a null name clears it
        await storage.updateRun("run_named", { status: "done", name: null, note: "a\nsecond line" });
        const cleared = await storage.getStoredRun("run_named");
        expect(cleared).not.toHaveProperty("name");
        expect(cleared).toMatchObject({ status: "done", note: "a\nsecond line" });
        expect((await storage.getStoredRun("run_unnamed"))?.name).toBe("after the swap");
        await storage.deleteRun("run_named");
        await storage.deleteRun("run_unnamed");
      });
    });

    describe("answered examples", () => {
      it("stores an example's predictions, request facts and counters together, listed in run order", async () => {
        await storage.insertRun(run("run_a"));
        await storage.recordExample(result("run_a", "e2", 1, ["answered", "answered"]));
        await storage.recordExample(result("run_a", "e1", 0, ["escalated", "escalated"]));
        const rows = await storage.listPredictions("run_a");
        expect(rows.map((r) => `${r.exampleId}/${r.item}`)).toEqual([
          "e1/single",
          "e1/multi",
          "e2/single",
          "e2/multi",
        ]);
        expect(rows[3]).toEqual(prediction("run_a", "e2", "multi", "answered"));
        expect(rows[0]).toEqual(prediction("run_a", "e1", "single", "escalated"));
        const stored = await storage.getStoredRun("run_a");
        expect(stored?.counters).toMatchObject({
          done: 2,
          answered: 2,
          escalated: 2,
          errors: 1,
          inputTokens: 20,
          outputTokens: 4,
          cost: 1,
        });
        expect([...(await storage.storedOrdinals("run_a", 0, 10))]).toEqual([0, 1]);
        expect([...(await storage.storedOrdinals("run_a", 1, 2))]).toEqual([1]);
        expect(await storage.latencies("run_a")).toEqual([10, 20]);
        expect(await storage.servedModels("run_a")).toEqual(["m-2"]);
        expect((await storage.listPredictions("run_a", { item: "multi" })).length).toBe(2);
        expect((await storage.listPredictions("run_a", { split: ["train"] })).length).toBe(0);
        expect((await storage.listPredictions("run_a", { split: "test", item: "single" })).length).toBe(2);
      });

      it("refuses an example stored before as AlreadyStored, storing and counting nothing; its neighbours are stored", async () => {
        await storage.insertRun(run("run_b"));
        await storage.recordExample(result("run_b", "e1", 0, ["answered", "unknown"]));
        const snapshot = async () => ({
          counters: (await storage.getStoredRun("run_b"))?.counters,
          predictions: await storage.listPredictions("run_b"),
          single: await values("run_b", "single"),
          multi: await values("run_b", "multi"),
          latencies: await storage.latencies("run_b"),
          done: [...(await storage.storedOrdinals("run_b", 0, 100))],
        });
        const before = await snapshot();
        // the same example again (at another ordinal, as a resumed run might): refused, nothing added
        const twice = result("run_b", "e1", 5, ["answered", "answered"]);
        twice.ms = 999;
        const refused = await storage.recordExample(twice).catch((err: unknown) => err);
        expect(refused).toBeInstanceOf(AlreadyStored);
        expect(refused).toMatchObject({ code: "ALREADY_STORED", runId: "run_b", exampleId: "e1" });
        expect(await snapshot()).toEqual(before);
        expect(before.single.length).toBe(1);
        // among writes made together: only the duplicate fails, its neighbours are stored with their counters
        const group = await Promise.allSettled(
          ["e2", "e1", "e3"].map((id, i) =>
            storage.recordExample(result("run_b", id, 1 + i, ["answered", "answered"])),
          ),
        );
        expect(group.map((g) => g.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
        expect((group[1] as PromiseRejectedResult).reason).toBeInstanceOf(AlreadyStored);
        expect((await storage.getStoredRun("run_b"))?.counters).toMatchObject({
          done: 3,
          answered: 5,
          unknown: 1,
        });
        expect((await storage.listPredictions("run_b", { item: "single" })).map((r) => r.exampleId)).toEqual([
          "e1",
          "e2",
          "e3",
        ]);
        expect((await values("run_b", "multi")).map((v) => [v.exampleId, v.ordinal])).toEqual([
          ["e1", 0],
          ["e2", 1],
          ["e3", 3],
        ]);
        expect(await storage.latencies("run_b")).toEqual([10, 20, 40]);
      });

      it("stores a burst of answers written at once, each with its counters", async () => {
        await storage.insertRun(run("run_burst", { total: 600 }));
        await Promise.all(
          Array.from({ length: 600 }, (_, e) =>
            storage.recordExample(result("run_burst", `e${e}`, e, ["answered", "unknown"])),
          ),
        );
        const stored = await storage.getStoredRun("run_burst");
        expect(stored?.counters).toMatchObject({ done: 600, answered: 600, unknown: 600, inputTokens: 6000 });
        expect(stored?.counters.cost).toBeCloseTo(300, 9);
        expect((await storage.listPredictions("run_burst")).length).toBe(1200);
        expect((await storage.storedOrdinals("run_burst", 0, 10_000)).length).toBe(600);
        const multi = await values("run_burst", "multi");
        expect(multi.map((v) => v.ordinal)).toEqual(Array.from({ length: 600 }, (_, e) => e));
      });

      it("knows who served a run as examples arrive, a model swap included, and forgets a deleted run", async () => {
        await storage.insertRun(run("run_s", { model: "m" }));
        const served = async () =>
          (await values("run_s", "single")).map((v) => `${v.exampleId}:${v.servedBy}`);
        expect(await storage.servedModels("run_s")).toEqual([]);
        await storage.recordExample(result("run_s", "e0", 0, ["answered", "answered"]));
        expect(await storage.servedModels("run_s")).toEqual(["m-2"]);
        expect(await served()).toEqual(["e0:m-2"]);
        // the weights swapped: asked again, the answers name the new model for that example only
        await storage.recordExample(
          placed(result("run_s", "e1", 1, ["answered", "answered"]), "test", "m-3"),
        );
        expect(await storage.servedModels("run_s")).toEqual(["m-2", "m-3"]);
        expect(await served()).toEqual(["e0:m-2", "e1:m-3"]);
        // an example that failed is not counted as served; one without a name counts as the run's model
        await storage.recordExample(result("run_s", "e2", 2, ["escalated", "escalated"]));
        await storage.recordExample(placed(result("run_s", "e3", 3, ["answered", "answered"]), "test", null));
        expect(await storage.servedModels("run_s")).toEqual(["m", "m-2", "m-3"]);
        expect(await served()).toEqual(["e0:m-2", "e1:m-3", "e2:m-2", "e3:null"]);
        await storage.deleteRun("run_s");
        expect(await storage.servedModels("run_s")).toEqual([]);
      });
    });

    describe("reading a run's predictions", () => {
      it("reads predictions page by page in run order, with filters, as listed", async () => {
        await storage.insertRun(run("run_p", { total: 5000 }));
        const writes: Promise<void>[] = [];
        for (let e = 4999; e >= 0; e--) {
          const r = result("run_p", `e${e}`, e, ["answered", e % 7 === 0 ? "escalated" : "unknown"]);
          // a weight swap mid-run: some examples served by another model, some by no named one
          writes.push(
            storage.recordExample(
              placed(
                r,
                e % 2 === 1 ? "calibration" : "test",
                e % 3 === 0 ? "m-3" : e % 5 === 0 ? null : "m-2",
              ),
            ),
          );
        }
        await Promise.all(writes);
        const all = await storage.listPredictions("run_p");
        expect(all.length).toBe(10_000);
        expect(all.slice(0, 3).map((r) => `${r.exampleId}/${r.item}`)).toEqual([
          "e0/single",
          "e0/multi",
          "e1/single",
        ]);
        const paged: PredictionRow[] = [];
        for await (const page of storage.predictionPages("run_p")) {
          expect(page.length).toBeGreaterThan(0);
          paged.push(...page);
        }
        expect(paged).toEqual(all);
        const wanted = all.filter((r) => r.item === "multi" && r.split === "calibration");
        const filtered: PredictionRow[] = [];
        for await (const page of storage.predictionPages("run_p", { item: "multi", split: "calibration" }))
          filtered.push(...page);
        expect(filtered).toEqual(wanted);
        expect(await storage.listPredictions("run_p", { item: "multi", split: ["calibration"] })).toEqual(
          wanted,
        );
        expect(await storage.listPredictions("run_p", { split: ["calibration", "test"] })).toEqual(all);
        // the analysis columns of the same decisions: one item, one split, every model named as stored
        const ordinals = new Map(all.map((r) => [r.exampleId, Number(r.exampleId.slice(1))]));
        const lean = await values("run_p", "multi", ["calibration"]);
        expect(lean.length).toBe(2500);
        expect(new Set(lean.map((v) => v.servedBy))).toEqual(new Set(["m-2", "m-3", null]));
        expect(lean).toEqual(await expectedValues("run_p", wanted, ordinals));
        const single = all.filter((r) => r.item === "single");
        expect(await values("run_p", "single")).toEqual(await expectedValues("run_p", single, ordinals));
      });

      it("lets writes go on between pages without repeating a row or showing one behind the reader", async () => {
        const n = 3000;
        await storage.insertRun(run("run_w", { total: 2 * n }));
        const write = (from: number, to: number) => {
          const writes: Promise<void>[] = [];
          for (let e = from; e < to; e += 2)
            writes.push(storage.recordExample(result("run_w", `e${e}`, e, ["answered"])));
          return Promise.all(writes);
        };
        await write(0, 2 * n); // the even examples
        const seen: number[] = [];
        let pages = 0;
        let firstEnd = -1;
        for await (const page of storage.predictionPages("run_w")) {
          seen.push(...page.map((r) => Number(r.exampleId.slice(1))));
          if (pages++ > 0) continue;
          // 100 odd examples arrive behind the reader, 100 at the run's end
          firstEnd = seen[seen.length - 1];
          await write(1, 200);
          await write(2 * n - 199, 2 * n);
        }
        expect(new Set(seen).size).toBe(seen.length);
        expect([...seen].sort((a, b) => a - b)).toEqual(seen); // run order throughout
        expect(seen.filter((e) => e % 2 === 0).length).toBe(n);
        const odd = seen.filter((e) => e % 2 === 1);
        expect(odd.every((e) => e > firstEnd)).toBe(true);
        if (pages > 1) expect(odd).toEqual(Array.from({ length: 100 }, (_, j) => 2 * n - 199 + 2 * j));
      });

      it("reads one item's stored decisions for some examples by id", async () => {
        await storage.insertRun(run("run_f"));
        await storage.recordExample(result("run_f", "e0", 0, ["answered", "answered"]));
        await storage.recordExample(result("run_f", "e1", 1, ["escalated", "escalated"]));
        await storage.recordExample(result("run_f", "e2", 2, ["unknown"]));
        const multi = await storage.predictionsFor("run_f", "multi", ["e1", "e0", "e2", "nope"]);
        expect([...multi.keys()].sort()).toEqual(["e0", "e1"]);
        expect(multi.get("e0")).toEqual(prediction("run_f", "e0", "multi", "answered"));
        expect(multi.get("e1")).toEqual(prediction("run_f", "e1", "multi", "escalated"));
        const single = await storage.predictionsFor("run_f", "single", ["e2"]);
        expect(single.get("e2")).toEqual(prediction("run_f", "e2", "single", "unknown"));
        expect((await storage.predictionsFor("run_f", "nothing", ["e0"])).size).toBe(0);
        expect((await storage.predictionsFor("run_none", "single", ["e0"])).size).toBe(0);
        expect((await storage.predictionsFor("run_f", "single", [])).size).toBe(0);
      });
    });

    describe("item values", () => {
      it("keeps one row per stored decision, in run order, read back as stored", async () => {
        const specs = [
          { name: "single", kind: "choice" as const, options: ["a", "b"], notStated: true },
          { name: "multi", kind: "multi" as const, options: ["a", "b", "c"], notStated: false },
        ];
        await storage.insertRun(
          run("run_v", { dataset: "gone", splits: ["train", "calibration", "test"], items: specs }),
        );
        const decision = (
          item: string,
          status: PredictionRow["status"],
          extra: Partial<PredictionRow>,
        ): PredictionRow => ({ ...prediction("run_v", "", item, status), ...extra });
        const examples: [string, number, ExampleResult["split"], string | null, PredictionRow[]][] = [
          [
            "x-answered",
            4,
            "test",
            "m-2",
            [
              decision("single", "answered", { probabilities: { a: 0.6, b: 0.3, [NOT_STATED]: 0.1 } }),
              decision("multi", "answered", {
                gold: ["c", "a"],
                answer: ["a"],
                probabilities: { a: 0.9, b: 0.05, c: 0.45 },
              }),
            ],
          ],
          [
            "x-unknown",
            1,
            "calibration",
            null,
            [
              decision("single", "unknown", {
                gold: NOT_STATED,
                answer: null,
                confidence: 0.8,
                probabilities: { a: 0.1, b: 0.1, [NOT_STATED]: 0.8 },
              }),
              // an empty gold list; probabilities with a column missing
              decision("multi", "answered", { gold: [], answer: [], probabilities: { a: 0.2, c: 0.1 } }),
            ],
          ],
          [
            "x-escalated",
            2,
            "train",
            "m-3",
            [
              decision("single", "escalated", { gold: null }),
              decision("multi", "escalated", { gold: ["b"] }),
            ],
          ],
          [
            "x-odd",
            7,
            "test",
            "m-2",
            // a gold that is no option, an answer of the wrong shape
            [
              decision("single", "answered", { gold: "zebra", answer: "b", confidence: 0.51 }),
              decision("multi", "answered", { gold: "a", answer: ["b"] }),
            ],
          ],
        ];
        const ordinals = new Map<string, number>();
        for (const [exampleId, ordinal, split, servedBy, predictions] of examples) {
          ordinals.set(exampleId, ordinal);
          const r = placed(
            {
              ...result("run_v", exampleId, ordinal, []),
              failed: predictions.every((p) => p.status === "escalated"),
              predictions: predictions.map((p) => ({ ...p, exampleId })),
            },
            split,
            servedBy,
          );
          await storage.recordExample(r);
        }
        expect((await storage.getRun("run_v"))?.items).toEqual(specs);
        const stored = await storage.listPredictions("run_v");
        const of = (item: string) => stored.filter((p) => p.item === item);
        expect(of("single").map((p) => p.exampleId)).toEqual([
          "x-unknown",
          "x-escalated",
          "x-answered",
          "x-odd",
        ]);
        for (const [index, spec] of specs.entries()) {
          const rows = rowsOf(await storage.itemColumns("run_v", index));
          expect(rows).toEqual(await expectedValues("run_v", of(spec.name), ordinals));
          expect(rows.map((v) => v.ordinal)).toEqual([1, 2, 4, 7]);
        }
        // what the codes hold, spelled out for the first item
        const single = await values("run_v", "single");
        expect(single.map((v) => [v.split, v.status, v.gold, v.answer, v.servedBy])).toEqual([
          [1, 1, 2, null, null],
          [0, 2, null, null, "m-3"],
          [2, 0, 0, 0, "m-2"],
          [2, 0, null, 1, "m-2"], // a gold that is no option reads as none
        ]);
        expect(single[2].probs).toEqual([0.6, 0.3, 0.1]);
        expect(single[1].probs).toBeNull();
        const multi = await values("run_v", "multi");
        expect(multi.map((v) => [v.gold, v.answer])).toEqual([
          [[], []],
          [[1], null],
          [[2, 0], [0]],
          [0, [1]],
        ]);
        expect(multi[0].probs).toEqual([0.2, Number.NaN, 0.1]);
        // split filter: any set of splits, in run order
        expect((await values("run_v", "single", ["test"])).map((v) => v.exampleId)).toEqual([
          "x-answered",
          "x-odd",
        ]);
        expect((await values("run_v", "multi", ["train", "calibration"])).map((v) => v.exampleId)).toEqual([
          "x-unknown",
          "x-escalated",
        ]);
        expect((await storage.itemColumns("run_v", 2)).n).toBe(0);
        expect((await storage.itemColumns("run_none", 0)).n).toBe(0);
      });
    });

    describe("an item read part by part", () => {
      it("hands over the same decisions as the whole columns, and the headline made from them is the same", async () => {
        // five packed chunks an item and some loose rows, stored out of run order, on three splits
        const n = 5 * CHUNK_ROWS + 50;
        const splits = ["train", "calibration", "test"] as const;
        const items = [
          { name: "single", kind: "choice" as const, options: ["a", "b"], notStated: false },
          { name: "multi", kind: "multi" as const, options: ["a", "b"], notStated: false },
        ];
        await storage.insertRun(run("run_parts", { dataset: "gone", total: n, splits: [...splits], items }));
        const order = Array.from({ length: n }, (_, e) => (e * 7919) % n);
        const specs = items;
        /** The headline of the whole columns of the test split as stored now. */
        const whole = async () =>
          headlineOf(
            await Promise.all(
              specs.map(async (spec, index) =>
                topView(itemDataOf(spec, await storage.itemColumns("run_parts", index, ["test"]))),
              ),
            ),
          );
        /** Headlines of the same rows, whatever order their parts were read in: the same values. */
        const sameHeadline = (got: Headline, want: Headline) => {
          expect(got).toEqual(want);
          expect(want.ece).toBeGreaterThan(0);
        };
        const data = new AnalysisData(storage);
        const reads: (number | undefined)[] = [];
        const readsOf = storage.eachItemPart.bind(storage);
        storage.eachItemPart = (runId, index, chosen, visit, after) => {
          if (runId === "run_parts") reads.push(after);
          return readsOf(runId, index, chosen, visit, after);
        };
        for (let at = 0; at < n; at += 512) {
          // the live headline about half-way: three chunks an item and loose rows stored so far
          if (at === 3 * CHUNK_ROWS + 512) sameHeadline(await data.headline("run_parts"), await whole());
          await Promise.all(
            order.slice(at, at + 512).map((o) => {
              const r = placed(
                result("run_parts", `e${o}`, o, ["answered", "answered"]),
                splits[o % 3],
                "m-2",
              );
              const q = 0.5 + (o % 49) / 100;
              r.ms = ((o * 37) % 1000) / 7;
              const [single, multi] = r.predictions;
              single.probabilities = o % 5 ? { a: q, b: 1 - q } : { a: 1 - q, b: q };
              multi.probabilities = { a: q, b: 1 - q / 2 };
              return storage.recordExample(r);
            }),
          );
        }
        // the live headline at the end reads only the chunks packed since (not from -1 again), and is the same
        reads.length = 0;
        const last = await data.headline("run_parts");
        expect(reads.length).toBe(2);
        for (const after of reads) expect(after).toBeGreaterThanOrEqual(2);
        storage.eachItemPart = readsOf;
        sameHeadline(last, await whole());
        expect(last.n).toBeGreaterThan(n / 3);
        for (const chosen of [undefined, ["test" as const], ["train" as const, "calibration" as const]]) {
          for (const index of specs.keys()) {
            const parts: ItemColumns[] = [];
            await storage.eachItemPart("run_parts", index, chosen, (part) => parts.push(part));
            expect(parts.length).toBeGreaterThanOrEqual(5);
            for (const part of parts)
              expect(Array.from(part.ordinal)).toEqual(Array.from(part.ordinal).sort((a, b) => a - b));
            const joined = parts.flatMap(rowsOf).sort((a, b) => a.ordinal - b.ordinal);
            expect(joined).toEqual(rowsOf(await storage.itemColumns("run_parts", index, chosen)));
          }
        }
        // request times: the nearest rank (the first time whose share of the ordered times reaches q)
        const times = order.map((o) => ((o * 37) % 1000) / 7).sort((x, y) => x - y);
        const rank = (q: number) => Math.round(times[Math.ceil(q * n) - 1] * 10) / 10;
        expect(await storage.latencyPercentiles("run_parts")).toEqual({
          p50: rank(0.5),
          p90: rank(0.9),
          p99: rank(0.99),
        });
        expect(await storage.latencyPercentiles("run_none")).toEqual({ p50: 0, p90: 0, p99: 0 });
        // a packed chunk's rows only: after its number, none of them again
        const numbers: (number | null)[] = [];
        await storage.eachItemPart("run_parts", 0, undefined, (_, chunk) => numbers.push(chunk));
        expect(numbers).toEqual([0, 1, 2, 3, 4, null]);
        const later: (number | null)[] = [];
        await storage.eachItemPart("run_parts", 0, undefined, (_, chunk) => later.push(chunk), 2);
        expect(later).toEqual([3, 4, null]);
        // a finished run's headline: all read again, the same
        await storage.updateRun("run_parts", { status: "done" });
        sameHeadline(await new AnalysisData(storage).headline("run_parts"), await whole());
      });
    });

    describe("deleting a run", () => {
      it("removes everything of the run and nothing of another", async () => {
        for (const id of ["run_d", "run_keep"]) {
          await storage.insertRun(run(id));
          await storage.recordExample(result(id, "e0", 0, ["answered", "answered"]));
          await storage.recordExample(result(id, "e1", 1, ["escalated", "unknown"]));
          await storage.saveCalibration({ id: `cal_${id}`, runId: id, createdAt: "t", payload: { id } });
        }
        const keep = async () => ({
          run: await storage.getStoredRun("run_keep"),
          predictions: await storage.listPredictions("run_keep"),
          values: await values("run_keep", "multi"),
          calibrations: await storage.listCalibrations({ runId: "run_keep" }),
        });
        const kept = await keep();
        const index = ((await storage.getRun("run_d"))?.items ?? []).findIndex((s) => s.name === "single");
        expect((await storage.itemColumns("run_d", index)).n).toBe(2);
        await storage.deleteRun("run_d");
        expect(await storage.getRun("run_d")).toBeUndefined();
        expect(await storage.getStoredRun("run_d")).toBeUndefined();
        expect(await storage.listPredictions("run_d")).toEqual([]);
        expect((await storage.itemColumns("run_d", index)).n).toBe(0);
        expect((await storage.itemColumns("run_d", index + 1)).n).toBe(0);
        expect((await storage.predictionsFor("run_d", "single", ["e0"])).size).toBe(0);
        expect((await storage.storedOrdinals("run_d", 0, 100)).length).toBe(0);
        expect(await storage.latencies("run_d")).toEqual([]);
        expect(await storage.servedModels("run_d")).toEqual([]);
        expect(await storage.getCalibration("cal_run_d")).toBeUndefined();
        expect(await storage.listCalibrations({ runId: "run_d" })).toEqual([]);
        expect((await storage.listRuns()).map((r) => r.id)).not.toContain("run_d");
        expect(await keep()).toEqual(kept);
        // the same id can be used again, from nothing
        await storage.insertRun(run("run_d"));
        await storage.recordExample(result("run_d", "e0", 0, ["answered"]));
        expect((await storage.getStoredRun("run_d"))?.counters.done).toBe(1);
        expect((await storage.listPredictions("run_d")).length).toBe(1);
      });
    });

    describe("person tokens", () => {
      it("stores tokens by hash, lists them without it, revokes one by name at once", async () => {
        const hashA = "a".repeat(64);
        const hashB = "b".repeat(64);
        await storage.insertToken({
          id: "tok_a",
          name: "alice",
          hash: hashA,
          createdAt: "2026-01-01T00:00:00.000Z",
          revokedAt: null,
        });
        expect(await storage.hasActiveTokens()).toBe(true);
        await storage.insertToken({
          id: "tok_b",
          name: "bob",
          hash: hashB,
          createdAt: "2026-01-02T00:00:00.000Z",
          revokedAt: null,
        });
        const alice = { id: "tok_a", name: "alice", createdAt: "2026-01-01T00:00:00.000Z", revokedAt: null };
        expect(await storage.tokenByHash(hashA)).toEqual(alice);
        expect(await storage.tokenByHash("c".repeat(64))).toBeUndefined();
        const listed = await storage.listTokens();
        expect(listed.map((t) => t.name)).toEqual(["alice", "bob"]);
        expect(JSON.stringify(listed)).not.toContain(hashA);
        // a name or a hash is taken once
        const again = {
          id: "tok_c",
          name: "alice",
          hash: "d".repeat(64),
          createdAt: "2026",
          revokedAt: null,
        };
        await expect(storage.insertToken(again)).rejects.toThrow();
        await expect(storage.insertToken({ ...again, name: "carol", hash: hashB })).rejects.toThrow();
        expect(await storage.revokeToken("alice")).toBe(true);
        expect(await storage.revokeToken("alice")).toBe(false);
        expect(await storage.revokeToken("nobody")).toBe(false);
        expect(await storage.tokenByHash(hashA)).toBeUndefined();
        expect(await storage.tokenByHash(hashB)).toMatchObject({ name: "bob" });
        const revoked = (await storage.listTokens()).find((t) => t.name === "alice");
        expect(revoked?.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
        expect(await storage.hasActiveTokens()).toBe(true);
        await storage.revokeToken("bob");
        expect(await storage.hasActiveTokens()).toBe(false);
      });

      it("keeps who started a run, and nobody for a run no person's token started", async () => {
        await storage.insertRun(run("run_by_alice", { createdBy: "alice" }));
        await storage.insertRun(run("run_by_nobody"));
        expect((await storage.getStoredRun("run_by_alice"))?.createdBy).toBe("alice");
        expect(await storage.getStoredRun("run_by_nobody")).not.toHaveProperty("createdBy");
        const listed = await storage.listStoredRuns();
        expect(listed.find((r) => r.id === "run_by_alice")?.createdBy).toBe("alice");
        await storage.deleteRun("run_by_alice");
        await storage.deleteRun("run_by_nobody");
      });
    });

    describe("calibrations", () => {
      it("saves, replaces, reads and lists calibrations, newest first, by run", async () => {
        await storage.saveCalibration({
          id: "cal_a",
          runId: "run_x",
          createdAt: "2026-01-01",
          payload: { a: 1 },
        });
        await storage.saveCalibration({
          id: "cal_b",
          runId: null,
          createdAt: "2026-01-03",
          payload: { b: [1] },
        });
        await storage.saveCalibration({ id: "cal_c", runId: "run_x", createdAt: "2026-01-02", payload: {} });
        expect(await storage.getCalibration("cal_b")).toEqual({
          id: "cal_b",
          runId: null,
          createdAt: "2026-01-03",
          payload: { b: [1] },
        });
        expect(await storage.getCalibration("cal_none")).toBeUndefined();
        const ours = (rows: { id: string }[]) => rows.map((c) => c.id).filter((id) => /^cal_[abc]$/.test(id));
        expect(ours(await storage.listCalibrations())).toEqual(["cal_b", "cal_c", "cal_a"]);
        expect(ours(await storage.listCalibrations({ runId: "run_x" }))).toEqual(["cal_c", "cal_a"]);
        // saved again under its id: replaced, with its creation time kept
        await storage.saveCalibration({
          id: "cal_a",
          runId: "run_y",
          createdAt: "2030-01-01",
          payload: { a: 2 },
        });
        expect(await storage.getCalibration("cal_a")).toEqual({
          id: "cal_a",
          runId: "run_y",
          createdAt: "2026-01-01",
          payload: { a: 2 },
        });
        expect(ours(await storage.listCalibrations({ runId: "run_x" }))).toEqual(["cal_c"]);
      });
    });
  });
}
