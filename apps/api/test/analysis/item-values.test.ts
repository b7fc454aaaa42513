import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Task } from "@decision-workbench/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisData } from "../../src/analysis/data.js";
import { taskSpecs } from "../../src/analysis/item-spec.js";
import { itemData, rowProbabilities, SPLIT_NAMES } from "../../src/analysis/matrix.js";
import { itemReport } from "../../src/analysis/report.js";
import { openStorage, type SqliteStorage } from "../../src/storage/sqlite.js";
import type { ExampleResult, PredictionRow } from "../../src/storage/types.js";
import { storedRun } from "../fixtures.js";
import { decisionRows, escalatedRow, startServer } from "./fixtures.js";

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
          expect(d.exampleIds[i]).toBe(r.exampleId);
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

  it("a split is read from the columns alone, and an unknown label is not usable", async () => {
    const data = new AnalysisData(storage);
    const loaded = await data.run("run_p");
    const spec = loaded.specs.find((s) => s.name === "species")!;
    const test = await data.itemSplit(loaded, spec, "test");
    const rows = penguins.rows.filter((r) => r.item === "species" && r.split === "test");
    expect(test.exampleIds).toEqual(rows.map((r) => r.exampleId));
    const all = await data.itemData(loaded, spec);
    const odd = all.exampleIds.indexOf("odd");
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
