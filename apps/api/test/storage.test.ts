import { statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS, migrate } from "../src/storage/migrations.js";
import { keptBytes, RECENT_BYTES, RECENT_DATASETS, RecentExamples } from "../src/storage/recent-examples.js";
import {
  openStorage,
  PAGE_EXAMPLES,
  type SqliteStorage,
  writerThreadDefault,
} from "../src/storage/sqlite.js";
import type { AnalysisRow, ExampleResult, PredictionRow } from "../src/storage/types.js";
import { storedRun, syntheticTask } from "./fixtures.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir();

afterAll(() => tmp.cleanup());

const run = storedRun;

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

function result(
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

describe("the writer of answers", () => {
  it("is chosen by WORKBENCH_WRITER_THREAD, else by the machine's cores; a bad value says what would do", () => {
    expect(writerThreadDefault({ WORKBENCH_WRITER_THREAD: "1" })).toBe(true);
    expect(writerThreadDefault({ WORKBENCH_WRITER_THREAD: "0" })).toBe(false);
    expect(writerThreadDefault({})).toBe(availableParallelism() > 2);
    expect(() => writerThreadDefault({ WORKBENCH_WRITER_THREAD: "yes" })).toThrow(
      'WORKBENCH_WRITER_THREAD must be 1 (commit answers on a writer thread) or 0 (on the event loop), not "yes"',
    );
  });
});

describe("the recent uploads' examples", () => {
  it("keeps the last read uploads within their count and bytes, frozen, and none too large", () => {
    const recent = new RecentExamples();
    const examples = (id: string) => [{ id, state: id, labels: { team: ["a"] }, split: "test" as const }];
    for (let i = 0; i <= RECENT_DATASETS; i++) recent.set(`d${i}`, "v", examples(`d${i}`), 10);
    expect(recent.size).toBe(RECENT_DATASETS);
    expect(recent.get("d0", "v")).toBeUndefined(); // the least recently read went first
    const kept = recent.get(`d${RECENT_DATASETS}`, "v");
    expect(kept?.[0].id).toBe(`d${RECENT_DATASETS}`);
    expect(Object.isFrozen(kept) && Object.isFrozen(kept?.[0].labels.team)).toBe(true);
    expect(recent.get(`d${RECENT_DATASETS}`, "other version")).toBeUndefined();
    // one that fills the bytes pushes out every other; one above them is not kept at all
    recent.set("big", "v", examples("big"), RECENT_BYTES);
    expect(recent.size).toBe(1);
    const huge = recent.set("huge", "v", examples("huge"), RECENT_BYTES + 1);
    expect(Object.isFrozen(huge)).toBe(true); // handed back frozen all the same
    expect(recent.get("huge", "v")).toBeUndefined();
    expect(recent.get("big", "v")?.[0].id).toBe("big");
    recent.forget("big");
    expect(recent.size).toBe(0);
  });

  it("estimates a structured state and labels above a plain string state", () => {
    const plain = keptBytes({ id: "a", state: JSON.stringify("x".repeat(300)), labels: "{}", meta: null });
    const structured = keptBytes({
      id: "a",
      state: JSON.stringify({ t: "x".repeat(290) }),
      labels: "{}",
      meta: null,
    });
    expect(plain).toBeGreaterThan(300);
    expect(structured).toBeGreaterThan(2 * plain);
  });
});

for (const writerThread of [false, true]) {
  describe(`SQLite storage, answers committed ${writerThread ? "on a writer thread" : "on the event loop"}`, () => {
    let storage: SqliteStorage;

    beforeAll(() => {
      storage = openStorage(join(tmp.dir, writerThread ? "thread" : "loop", "workbench.sqlite"), {
        writerThread,
      });
    });

    afterAll(async () => {
      await storage.close();
    });

    it("creates the file in WAL mode at the latest schema version", () => {
      const db = new Database(storage.path, { readonly: true });
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS[MIGRATIONS.length - 1].version);
      db.close();
      expect(statSync(storage.path).isFile()).toBe(true);
    });

    it("refuses a database newer than the code", () => {
      const db = new Database(":memory:");
      db.pragma("user_version = 999");
      expect(() => migrate(db)).toThrow(/schema version 999, newer than this code knows/);
      db.close();
    });

    it("applies only the migrations a file lacks", () => {
      const db = new Database(":memory:");
      const steps = [
        { version: 1, name: "a", sql: "CREATE TABLE a (x INTEGER);" },
        { version: 2, name: "b", sql: "CREATE TABLE b (x INTEGER);" },
      ];
      expect(migrate(db, steps.slice(0, 1))).toBe(1);
      expect(migrate(db, steps)).toBe(2);
      expect(migrate(db, steps)).toBe(2);
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      expect(tables).toEqual(["a", "b"]);
      db.close();
    });

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
        cost: 1,
      });
      expect(await storage.doneExampleIds("run_a")).toEqual(new Set(["e1", "e2"]));
      expect(await storage.latencies("run_a")).toEqual([10, 20]);
      expect(await storage.servedModels("run_a")).toEqual(["m-2"]);
      expect((await storage.listPredictions("run_a", { item: "multi" })).length).toBe(2);
      expect((await storage.listPredictions("run_a", { split: ["train"] })).length).toBe(0);
    });

    it("knows who served a run as examples arrive, a model swap included, and forgets a deleted run", async () => {
      await storage.insertRun(run("run_s", { model: "m" }));
      const served = async () => {
        const rows = [];
        for await (const page of storage.analysisPages("run_s", { item: "single" })) rows.push(...page);
        return rows.map((r) => `${r.exampleId}:${r.servedBy}`);
      };
      expect(await storage.servedModels("run_s")).toEqual([]);
      await storage.recordExample(result("run_s", "e0", 0, ["answered", "answered"]));
      expect(await storage.servedModels("run_s")).toEqual(["m-2"]);
      expect(await served()).toEqual(["e0:m-2"]);
      // the weights swapped: asked again, the answers name the new model for that example only
      const swapped = result("run_s", "e1", 1, ["answered", "answered"]);
      swapped.servedBy = "m-3";
      for (const p of swapped.predictions) p.servedBy = "m-3";
      await storage.recordExample(swapped);
      expect(await storage.servedModels("run_s")).toEqual(["m-2", "m-3"]);
      expect(await served()).toEqual(["e0:m-2", "e1:m-3"]);
      // an example that failed is not counted as served; one without a name counts as the run's model
      await storage.recordExample(result("run_s", "e2", 2, ["escalated", "escalated"]));
      const unnamed = result("run_s", "e3", 3, ["answered", "answered"]);
      unnamed.servedBy = null;
      for (const p of unnamed.predictions) p.servedBy = null;
      await storage.recordExample(unnamed);
      expect(await storage.servedModels("run_s")).toEqual(["m", "m-2", "m-3"]);
      expect(await served()).toEqual(["e0:m-2", "e1:m-3", "e2:m-2", "e3:null"]);
      await storage.deleteRun("run_s");
      expect(await storage.servedModels("run_s")).toEqual([]);
    });

    it("writes nothing of an example whose transaction fails", async () => {
      await storage.insertRun(run("run_b"));
      await storage.recordExample(result("run_b", "e1", 0, ["answered"]));
      const twice = result("run_b", "e1", 0, ["answered"]);
      await expect(storage.recordExample(twice)).rejects.toThrow(/UNIQUE/);
      expect((await storage.getStoredRun("run_b"))?.counters.done).toBe(1);
      expect((await storage.listPredictions("run_b")).length).toBe(1);
      // in a group committed together: only the duplicate fails, its neighbours are stored with their counters
      const group = await Promise.allSettled(
        ["e2", "e1", "e3"].map((id, i) => storage.recordExample(result("run_b", id, 1 + i, ["answered"]))),
      );
      expect(group.map((g) => g.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((group[1] as PromiseRejectedResult).reason.message).toMatch(
        /UNIQUE constraint failed: run_examples/,
      );
      expect((await storage.getStoredRun("run_b"))?.counters).toMatchObject({ done: 3, answered: 3 });
      expect((await storage.listPredictions("run_b")).map((r) => r.exampleId)).toEqual(["e1", "e2", "e3"]);
    });

    it("commits a burst of answers in groups, each write resolving once its example is committed", async () => {
      await storage.insertRun(run("run_burst", { total: 600 }));
      const seen: number[] = [];
      const reader = new Database(storage.path, { readonly: true });
      const count = reader.prepare("SELECT count(*) FROM run_examples WHERE run_id = 'run_burst'").pluck();
      await Promise.all(
        Array.from({ length: 600 }, (_, e) =>
          storage.recordExample(result("run_burst", `e${e}`, e, ["answered", "unknown"])).then(() => {
            // another connection already sees the example (and every one before it in its group)
            seen.push(count.get() as number);
            expect(seen[seen.length - 1]).toBeGreaterThanOrEqual(seen.length);
          }),
        ),
      );
      reader.close();
      expect(seen.length).toBe(600);
      const stored = await storage.getStoredRun("run_burst");
      expect(stored?.counters).toMatchObject({ done: 600, answered: 600, unknown: 600, inputTokens: 6000 });
      expect((await storage.listPredictions("run_burst")).length).toBe(1200);
    });

    it("updates, lists and deletes runs with their predictions and calibrations", async () => {
      await storage.insertRun(run("run_c", { dataset: "other", createdAt: "2100-01-01T00:00:00.000Z" }));
      await storage.updateRun("run_c", {
        status: "done",
        headline: { accuracy: 0.5, ece: 0.1 },
        ownerPid: null,
      });
      await storage.saveCalibration({ id: "cal_1", runId: "run_c", createdAt: "t", payload: { x: 1 } });
      expect((await storage.listRuns())[0].id).toBe("run_c");
      expect((await storage.listRuns({ dataset: "other" })).map((r) => r.id)).toEqual(["run_c"]);
      expect((await storage.listRuns({ status: "done" })).map((r) => r.id)).toEqual(["run_c"]);
      expect((await storage.getStoredRun("run_c"))?.headline).toEqual({ accuracy: 0.5, ece: 0.1 });
      expect((await storage.listCalibrations({ runId: "run_c" })).map((c) => c.payload)).toEqual([{ x: 1 }]);
      await storage.deleteRun("run_c");
      expect(await storage.getRun("run_c")).toBeUndefined();
      expect(await storage.getCalibration("cal_1")).toBeUndefined();
    });

    it("stores uploads with their examples, pages them and finds states by id", async () => {
      const task = {
        name: "up",
        description: "d",
        provenance: { source: "s", package: "p", licence: "l", labels: "x" },
        items: [],
      };
      await storage.insertUpload(
        {
          name: "up",
          task,
          hash: "h",
          examples: 3,
          splits: { train: 1, calibration: 1, test: 1 },
          createdAt: "t",
        },
        [
          { id: "a", state: "Alpha 100%", labels: {}, split: "train" },
          { id: "b", state: { z: 1, a: 2 }, labels: {}, split: "test", meta: { m: 1 } },
          { id: "c", state: "gamma_x", labels: {}, split: "calibration" },
        ],
      );
      expect((await storage.getTask("up"))?.name).toBe("up");
      const states = await storage.getStates("up", ["b", "c", "zz"]);
      expect(Object.keys(states.get("b") as object)).toEqual(["z", "a"]);
      expect(states.get("c")).toBe("gamma_x");
      expect(states.has("zz")).toBe(false);
      expect(
        (await storage.pageExamples("up", { offset: 0, limit: 10, q: "100%" })).examples.map((e) => e.id),
      ).toEqual(["a"]);
      expect((await storage.pageExamples("up", { offset: 0, limit: 10, q: "gam_a" })).total).toBe(0);
      expect((await storage.pageExamples("up", { offset: 1, limit: 1 })).examples.map((e) => e.id)).toEqual([
        "b",
      ]);
      expect(
        (await storage.pageExamples("up", { split: "test", offset: 0, limit: 5 })).examples[0].meta,
      ).toEqual({ m: 1 });
      await storage.deleteUpload("up");
      expect(await storage.getTask("up")).toBeUndefined();
      expect((await storage.getTask("penguins"))?.name).toBe("penguins");
    });

    it("keeps a recently started-on upload's examples, and reads them again once replaced elsewhere", async () => {
      const upload = (hash: string, states: string[]) => {
        const task = { ...syntheticTask("kept"), items: [] };
        const examples = states.map((state) => ({ id: state, state, labels: {}, split: "test" as const }));
        const row = {
          name: "kept",
          task,
          hash,
          examples: examples.length,
          splits: { train: 0, calibration: 0, test: examples.length },
          createdAt: new Date().toISOString(),
        };
        return [row, examples] as const;
      };
      const ids = async () => (await storage.uploadWithExamples("kept"))?.examples.map((e) => e.id);
      await storage.insertUpload(...upload("h1", ["one", "two"]));
      const first = await storage.uploadWithExamples("kept");
      expect(first?.upload.hash).toBe("h1");
      expect(first?.examples.map((e) => e.state)).toEqual(["one", "two"]);
      expect((await storage.uploadWithExamples("kept"))?.examples).toBe(first?.examples); // kept
      expect(await storage.allExamples("kept")).not.toBe(first?.examples); // read afresh, not kept
      // another process (the command line) replaces the upload: other lines, then the same lines in another
      // order, which have the same content hash
      const other = openStorage(storage.path, { writerThread: false });
      try {
        await other.deleteUpload("kept");
        await other.insertUpload(...upload("h2", ["three"]));
        expect(await ids()).toEqual(["three"]);
        await other.deleteUpload("kept");
        await new Promise((r) => setTimeout(r, 2)); // another upload time
        await other.insertUpload(...upload("h2", ["four", "five"]));
        expect(await ids()).toEqual(["four", "five"]);
        await other.deleteUpload("kept");
        await new Promise((r) => setTimeout(r, 2));
        await other.insertUpload(...upload("h2", ["five", "four"]));
        expect(await ids()).toEqual(["five", "four"]);
      } finally {
        await other.close();
      }
      await storage.deleteUpload("kept");
      expect(await storage.uploadWithExamples("kept")).toBeUndefined();
    });

    it("reads predictions page by page in run order, with filters, past page boundaries", async () => {
      await storage.insertRun(run("run_p", { total: 5000 }));
      const writes: Promise<void>[] = [];
      for (let e = 4999; e >= 0; e--) {
        const r = result("run_p", `e${e}`, e, ["answered", e % 7 === 0 ? "escalated" : "unknown"]);
        if (e % 2 === 1) r.split = "calibration";
        // a weight swap mid-run: some examples served by another model, some by no named one
        r.servedBy = e % 3 === 0 ? "m-3" : e % 5 === 0 ? null : "m-2";
        for (const p of r.predictions) Object.assign(p, { split: r.split, servedBy: r.servedBy });
        writes.push(storage.recordExample(r));
      }
      await Promise.all(writes);
      const all = await storage.listPredictions("run_p");
      expect(all.length).toBe(10_000);
      expect(all.slice(0, 3).map((r) => `${r.exampleId}/${r.item}`)).toEqual([
        "e0/single",
        "e0/multi",
        "e1/single",
      ]);
      const pages: number[] = [];
      const paged: PredictionRow[] = [];
      for await (const page of storage.predictionPages("run_p")) {
        pages.push(page.length);
        paged.push(...page);
      }
      // pages of PAGE_EXAMPLES examples, two items each
      const full = Math.floor(5000 / PAGE_EXAMPLES);
      expect(pages).toEqual([...new Array(full).fill(2 * PAGE_EXAMPLES), 2 * (5000 - full * PAGE_EXAMPLES)]);
      expect(paged).toEqual(all);
      const lean = [];
      for await (const page of storage.analysisPages("run_p", { item: "multi", split: "calibration" }))
        lean.push(...page);
      const wanted = all.filter((r) => r.item === "multi" && r.split === "calibration");
      expect(lean.length).toBe(2500);
      expect(new Set(lean.map((r) => r.servedBy))).toEqual(new Set(["m-2", "m-3", null]));
      expect(lean).toEqual(
        wanted.map((r) => ({
          exampleId: r.exampleId,
          split: r.split,
          item: r.item,
          gold: r.gold,
          status: r.status,
          answer: r.answer,
          confidence: r.confidence,
          probabilities: r.probabilities,
          reason: r.reason,
          servedBy: r.servedBy,
        })),
      );
      // every item and split: the same pages as the prediction pages, the same rows
      const key = (r: AnalysisRow) => `${r.exampleId}/${r.item}/${r.split}/${r.status}/${r.servedBy}`;
      const analysed = async () => {
        const sizes: number[] = [];
        const rows: AnalysisRow[] = [];
        for await (const page of storage.analysisPages("run_p")) {
          sizes.push(page.length);
          rows.push(...page);
        }
        return { sizes, keys: rows.map(key) };
      };
      expect(await analysed()).toEqual({ sizes: pages, keys: all.map(key) });
      // a joined page whose ordinals come back out of order is read again row by row, and so is the rest
      const joined = storage as unknown as { stmt(sql: string): Database.Statement };
      const own = joined.stmt.bind(storage);
      joined.stmt = (sql: string) => {
        const st = own(sql);
        if (!sql.includes("group_concat")) return st;
        const page = st.raw();
        return {
          raw: () => ({
            get: (runId: string, after: number, ...args: unknown[]) => {
              const cols = page.get(runId, after, ...args) as string[];
              if (after < 2 * PAGE_EXAMPLES) return cols;
              const ordinals = JSON.parse(cols[4]) as number[];
              [ordinals[0], ordinals[1]] = [ordinals[1], ordinals[0]];
              return [...cols.slice(0, 4), JSON.stringify(ordinals)];
            },
          }),
        } as unknown as Database.Statement;
      };
      try {
        expect(await analysed()).toEqual({ sizes: pages, keys: all.map(key) });
      } finally {
        joined.stmt = own;
      }
    });

    it("lets writes go on between pages without repeating or skipping a row before the page's end", async () => {
      const n = 3 * PAGE_EXAMPLES;
      await storage.insertRun(run("run_w", { total: 2 * n }));
      const write = (from: number, to: number) => {
        const writes: Promise<void>[] = [];
        for (let e = from; e < to; e += 2)
          writes.push(storage.recordExample(result("run_w", `e${e}`, e, ["answered"])));
        return Promise.all(writes);
      };
      await write(0, 2 * n);
      const seen: string[] = [];
      let pages = 0;
      for await (const page of storage.predictionPages("run_w")) {
        seen.push(...page.map((r) => r.exampleId));
        if (pages++ > 0) continue;
        // the first page ends at the even example 2 * (PAGE_EXAMPLES - 1): 100 odd examples arrive behind the reader,
        // 100 ahead of it
        expect(seen[seen.length - 1]).toBe(`e${2 * (PAGE_EXAMPLES - 1)}`);
        await write(1, 200);
        await write(2 * n - 199, 2 * n);
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBe(n + 100);
      expect(seen.filter((id) => Number(id.slice(1)) % 2 === 1)).toEqual(
        Array.from({ length: 100 }, (_, j) => `e${2 * n - 199 + 2 * j}`),
      );
    });

    it("keeps analysis results per run and version, replaced by a newer version and deleted with the run", async () => {
      await storage.insertRun(run("run_k"));
      await storage.putAnalysisCache("run_k", "item:1:x", "done|4", Buffer.from("one"));
      expect((await storage.getAnalysisCache("run_k", "item:1:x", "done|4"))?.toString()).toBe("one");
      expect(await storage.getAnalysisCache("run_k", "item:1:x", "done|5")).toBeUndefined();
      expect(await storage.getAnalysisCache("run_k", "item:1:y", "done|4")).toBeUndefined();
      await storage.putAnalysisCache("run_k", "item:1:x", "done|5", Buffer.from("two"));
      expect(await storage.getAnalysisCache("run_k", "item:1:x", "done|4")).toBeUndefined();
      expect((await storage.getAnalysisCache("run_k", "item:1:x", "done|5"))?.toString()).toBe("two");
      await storage.putAnalysisCache("run_nope", "k", "v", Buffer.from("lost"));
      expect(await storage.getAnalysisCache("run_nope", "k", "v")).toBeUndefined();
      await storage.deleteRun("run_k");
      expect(await storage.getAnalysisCache("run_k", "item:1:x", "done|5")).toBeUndefined();
    });

    it("commits what is queued when it closes, and refuses a later write, saying why", async () => {
      const path = join(tmp.dir, writerThread ? "thread" : "loop", "closing.sqlite");
      const closing = openStorage(path, { writerThread });
      await closing.insertRun(run("run_z"));
      const queued = closing.recordExample(result("run_z", "e0", 0, ["answered"]));
      await closing.close();
      await queued;
      await expect(closing.recordExample(result("run_z", "e1", 1, ["answered"]))).rejects.toThrow(
        "the storage is closed: nothing more can be written",
      );
      const reopened = openStorage(path, { writerThread });
      expect((await reopened.getStoredRun("run_z"))?.counters.done).toBe(1);
      await reopened.close();
    });

    it("passes the integrity check", async () => {
      expect(await storage.integrityCheck()).toBe("ok");
    });
  });
}
