import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Task } from "@decision-workbench/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisData } from "../../src/analysis/data.js";
import { type ItemSpec, taskSpecs } from "../../src/analysis/item-spec.js";
import { itemData, rowProbabilities, SPLIT_NAMES } from "../../src/analysis/matrix.js";
import { itemReport } from "../../src/analysis/report.js";
import { ExampleIds } from "../../src/storage/example-ids.js";
import { CHUNK_ROWS } from "../../src/storage/item-columns.js";
import { openStorage, type SqliteStorage } from "../../src/storage/sqlite.js";
import type { ExampleResult, PredictionRow } from "../../src/storage/types.js";
import { storedRun } from "../fixtures.js";
import { decisionRows, escalatedRow, startServer } from "./fixtures.js";

// item data compare equal when their example ids are the same ids, made or not yet made
expect.addEqualityTesters([
  (a: unknown, b: unknown) =>
    a instanceof ExampleIds && b instanceof ExampleIds
      ? a.list().length === b.list().length && a.list().every((id, i) => id === b.at(i))
      : undefined,
]);

let penguins: { rows: PredictionRow[]; task: Task };
let spam: { rows: PredictionRow[]; task: Task };
let dir: string;
let storage: SqliteStorage;
let close: () => Promise<void>;

/** The rows of one run grouped into the answered examples the engine stores (in run order). */
function examplesOf(runId: string, rows: PredictionRow[]): ExampleResult[] {
  const byExample = new Map<string, PredictionRow[]>();
  for (const r of rows) byExample.set(r.exampleId, [...(byExample.get(r.exampleId) ?? []), { ...r, runId }]);
  return [...byExample.values()].map((predictions, ordinal) => ({
    runId,
    exampleId: predictions[0].exampleId,
    ordinal,
    split: predictions[0].split,
    ms: 10,
    servedBy: predictions[0].servedBy,
    inputTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    cost: 0,
    failed: predictions.every((p) => p.status === "escalated"),
    predictions,
  }));
}

async function store(runId: string, dataset: string, rows: PredictionRow[]): Promise<void> {
  await storage.insertRun(storedRun(runId, { dataset, splits: ["calibration", "test"] }));
  await Promise.all(examplesOf(runId, rows).map((e) => storage.recordExample(e)));
}

beforeAll(async () => {
  const server = await startServer();
  close = server.close;
  penguins = await decisionRows({ url: server.url, dataset: "penguins", limit: 200 });
  spam = await decisionRows({ url: server.url, dataset: "spam-assassin", limit: 150 });
  dir = mkdtempSync(join(tmpdir(), "wb-item-values-"));
  storage = openStorage(join(dir, "workbench.sqlite"));
  // an example the service did not answer, on every item, and one whose gold is no option of its item
  const first = penguins.rows.filter((r) => r.exampleId === penguins.rows[0].exampleId);
  const odd = first.map((r) => ({ ...r, exampleId: "odd", gold: r.item === "species" ? "Dodo" : r.gold }));
  penguins.rows.push(...first.map((r) => escalatedRow(r, "zz")), ...odd);
  await store("run_p", "penguins", penguins.rows);
  await store("run_s", "spam-assassin", spam.rows);
});

afterAll(async () => {
  await storage?.close();
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

/** Decisions of every kind: answered, Unknown, escalated, invalid probabilities, unlabelled, on two splits. */
function rowsOf(spec: ItemSpec, n: number): PredictionRow[] {
  const multi = spec.kind === "multi";
  const keys = [...spec.options, "not stated"];
  return Array.from({ length: n }, (_, i) => {
    const p: Record<string, number> = {};
    keys.forEach((key, j) => {
      p[key] = ((i * 7 + j * 3) % 10) / 10 + 0.05;
    });
    if (i % 11 === 0) p[spec.options[0]] = 1.5; // invalid
    const top = keys[i % keys.length];
    return {
      runId: "run_many",
      exampleId: `ex${i}`,
      split: i % 3 ? "test" : "calibration",
      item: spec.name,
      gold: i % 13 === 0 ? null : multi ? spec.options.filter((_, j) => (i + j) % 2 === 0) : keys[i % 4],
      status: i % 17 === 0 ? "escalated" : top === "not stated" ? "unknown" : "answered",
      answer: top === "not stated" ? null : multi ? [top] : top,
      confidence: p[top],
      probabilities: i % 17 === 0 ? null : p,
      logits: [],
      unknown: null,
      reason: i % 19 === 0 ? "because" : null,
      record: { model: "m" } as PredictionRow["record"],
      servedBy: i % 2 ? "m-1" : "m-2",
    } satisfies PredictionRow;
  });
}

describe("packed chunks", () => {
  it("a run past CHUNK_ROWS examples reads back in run order, whatever order its answers were stored in", async () => {
    const specs: ItemSpec[] = [
      { name: "one", kind: "choice", options: ["a", "b", "c"], notStated: true },
      { name: "many", kind: "multi", options: ["p", "q", "r"], notStated: true },
    ];
    const n = 2 * CHUNK_ROWS + 500;
    const rows = specs.map((spec) => rowsOf(spec, n));
    await storage.insertRun(
      storedRun("run_many", { dataset: "gone", splits: ["calibration", "test"], items: specs }),
    );
    // answers arrive out of order: ordinal i is stored at position (i * 7919) mod n
    const order = Array.from({ length: n }, (_, i) => (i * 7919) % n);
    for (let at = 0; at < n; at += 500) {
      await Promise.all(
        order.slice(at, at + 500).map((i) =>
          storage.recordExample({
            ...examplesOf("run_many", [rows[0][i], rows[1][i]])[0],
            ordinal: i,
            split: rows[0][i].split,
          }),
        ),
      );
    }
    const data = new AnalysisData(storage);
    const loaded = await data.run("run_many");
    for (const [index, spec] of specs.entries()) {
      expect(await data.itemData(loaded, spec)).toEqual(itemData(spec, rows[index]));
      const test = await data.itemSplit(loaded, spec, "test");
      expect(test.exampleIds.list()).toEqual(
        rows[index].filter((r) => r.split === "test").map((r) => r.exampleId),
      );
    }
    const packed = await storage.itemColumns("run_many", 0);
    expect(packed.n).toBe(n);
  });
});

describe("stored analysis columns", () => {
  for (const [name, runId] of [
    ["penguins (choice, score, not stated)", "run_p"],
    ["spam-assassin (yes/no, multi-label)", "run_s"],
  ] as const) {
    it(`read back as the decisions stored: ${name}`, async () => {
      const set = runId === "run_p" ? penguins : spam;
      const data = new AnalysisData(storage);
      const loaded = await data.run(runId);
      expect(loaded.specs).toEqual(taskSpecs(set.task));
      for (const spec of loaded.specs) {
        const rows = set.rows.filter((r) => r.item === spec.name);
        const d = await data.itemData(loaded, spec);
        expect(d.status.length).toBe(rows.length);
        rows.forEach((r, i) => {
          // read from the row alone, independent of the encoding
          expect(d.exampleIds.at(i)).toBe(r.exampleId);
          expect(SPLIT_NAMES[d.split[i]]).toBe(r.split);
          expect(d.answers[i]).toEqual(r.answer);
          expect(d.golds[i]).toEqual(r.gold === "Dodo" ? null : r.gold);
          expect(rowProbabilities(d, i)).toEqual(r.probabilities);
          expect(Number.isNaN(d.confidence[i]) ? null : d.confidence[i]).toBe(r.confidence);
        });
        // and the same item data (so the same report) as the decisions converted in memory
        expect(d).toEqual(itemData(spec, rows));
        expect(itemReport(d, "all")).toEqual(itemReport(itemData(spec, rows), "all"));
      }
    });
  }

  it("computations pushed out of a full cache while under way still answer", async () => {
    // a cache of 10 rows: every item's data and payload pushes the others out while they are computed
    const data = new AnalysisData(storage, 10);
    const [p, s] = await Promise.all([data.run("run_p"), data.run("run_s")]);
    const all = await Promise.all([
      data.headline("run_p"),
      data.headline("run_s"),
      ...p.specs.map((spec) => data.report(p, { item: spec.name, split: "all" })),
      ...s.specs.map((spec) => data.report(s, { item: spec.name, split: "all" })),
    ]);
    expect(all).toHaveLength(2 + p.specs.length + s.specs.length);
    const fresh = new AnalysisData(storage);
    expect(all[0]).toEqual(await fresh.headline("run_p"));
    expect(all[2]).toEqual(await fresh.report(p, { item: p.specs[0].name, split: "all" }));
  });

  it("a split is read from the columns alone, and an unknown label is not usable", async () => {
    const data = new AnalysisData(storage);
    const loaded = await data.run("run_p");
    const spec = loaded.specs.find((s) => s.name === "species")!;
    const test = await data.itemSplit(loaded, spec, "test");
    const rows = penguins.rows.filter((r) => r.item === "species" && r.split === "test");
    expect(test.exampleIds.list()).toEqual(rows.map((r) => r.exampleId));
    const all = await data.itemData(loaded, spec);
    const odd = all.exampleIds.list().indexOf("odd");
    expect(odd).toBeGreaterThanOrEqual(0);
    expect([...all.rowOf]).not.toContain(odd);
  });

  it("the version changes with every stored answer, so nothing computed before is served after", async () => {
    const data = new AnalysisData(storage);
    const before = await data.run("run_s");
    const report = await data.report(before, { item: "is_spam", split: "all" });
    const more = spam.rows.filter((r) => r.exampleId === spam.rows[0].exampleId);
    await storage.recordExample({
      ...examplesOf("run_s", more)[0],
      exampleId: "extra",
      ordinal: 10_000,
      predictions: more.map((r) => ({ ...r, runId: "run_s", exampleId: "extra" })),
    });
    const after = await data.run("run_s");
    expect(after.version).not.toBe(before.version);
    const again = await data.report(after, { item: "is_spam", split: "all" });
    expect(again.n).toBe(report.n + 1);
  });
});
