// POST /api/runs/:id/calibrations over HTTP on a real SQLite file, runs made against the real reference server:
// selection never reads the evaluation split, a forced method is honoured, a selection split is a third split, the
// file's split fields are right, degenerate fit data warn in the response and the file, bad input is a clear 400.
import { validateCalibrationFile } from "@decision-workbench/calibration";
import { type DecisionServerHandle, startDecisionServer } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AnalysisData } from "../../src/analysis/data.js";
import { type ItemData, SPLIT_NAMES } from "../../src/analysis/matrix.js";
import type { RunSummary } from "../../src/shapes/runs.js";
import { startWorkbench, type Workbench } from "./harness.js";

/** What happened, in order: selections finishing, reads of an evaluation split's probabilities or gold. */
const events: string[] = [];
let watchedSplit: string | null = null;

vi.mock("@decision-workbench/calibration", async (importOriginal) => {
  const lib = await importOriginal<typeof import("@decision-workbench/calibration")>();
  return {
    ...lib,
    chooseCalibrator: (...args: Parameters<typeof lib.chooseCalibrator>) => {
      events.push("select:start");
      const r = lib.chooseCalibrator(...args);
      events.push("select:end");
      return r;
    },
  };
});

vi.mock("../../src/analysis/matrix.js", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../src/analysis/matrix.js")>();
  const watched = new Set<string | symbol>(["probs", "gold", "labels", "rowProbs", "confidence"]);
  return {
    ...m,
    restrictSplits: (d: ItemData, splits: readonly string[] | null) => {
      const out = m.restrictSplits(d, splits as Parameters<typeof m.restrictSplits>[1]);
      if (watchedSplit === null || splits?.length !== 1 || splits[0] !== watchedSplit) return out;
      // only the fit's cuts (reports warmed in the background cut the test split too)
      if (!new Error().stack?.includes("fit-run")) return out;
      events.push(`restrict:${watchedSplit}`);
      return new Proxy(out, {
        get(target, key, receiver) {
          if (watched.has(key)) events.push(`read:${watchedSplit}`);
          return Reflect.get(target, key, receiver);
        },
      });
    },
  };
});

let wb: Workbench;
let server: DecisionServerHandle | undefined;
let three: RunSummary;
let oneSplit: RunSummary;

type Res<T = Record<string, unknown>> = { status: number; body: T; text: string };
type Calibration = {
  id: string;
  file: {
    source: { fit_split: string; eval_split: string };
    questions: Record<
      string,
      {
        method: string;
        warnings?: string[];
        selection?: { by: string; verdict: string; note: string };
        metrics?: { estimated_by?: string };
      }
    >;
  };
  candidates: Record<string, { method: string; chosen: boolean }[]>;
  selection: Record<string, { by: string; on: string; folds?: number; verdict: string; note: string }>;
  warnings: Record<string, string[]>;
  fit: {
    fitSplit: string;
    evalSplit: string;
    selectionSplit: string | null;
    method: string;
    estimatedBy: string;
    caveat: string | null;
    n: Record<string, { fit: number; eval: number; selection?: number }>;
  };
};
const post = <T = Calibration>(path: string, body: unknown) => wb.post<T>(path, body) as Promise<Res<T>>;
const errorOf = (r: Res<unknown>) => (r.body as { error: { code: string; message: string } }).error;

beforeAll(async () => {
  wb = await startWorkbench();
  server = await startDecisionServer({ port: 0, host: "127.0.0.1", alias: "bayes-2" });
  const serverId = await wb.addServer(server.url);
  three = await wb.run({
    dataset: "penguins",
    serverId,
    model: "workbench-latest",
    splits: ["train", "calibration", "test"],
    concurrency: 8,
  });
  oneSplit = await wb.run({
    dataset: "penguins",
    serverId,
    model: "workbench-latest",
    splits: ["test"],
    concurrency: 8,
  });
  expect(three.status).toBe("done");
  expect(oneSplit.status).toBe("done");
});

afterAll(async () => {
  await wb?.close();
  await server?.close();
});

describe("selection on the fit split only", () => {
  it("never reads the evaluation split before the method is final", async () => {
    events.length = 0;
    watchedSplit = "test";
    const r = await post(`/api/runs/${three.id}/calibrations`, { targetRisk: 0.1, resamples: 100 });
    watchedSplit = null;
    expect(r.status).toBe(201);
    const items = Object.keys(r.body.candidates);
    expect(items.length).toBe(3);
    // every item: one selection, then (only then) the evaluation split is cut out and read
    expect(events.filter((e) => e === "select:end")).toHaveLength(items.length);
    expect(events.filter((e) => e === "restrict:test")).toHaveLength(items.length);
    expect(events.some((e) => e === "read:test")).toBe(true);
    // per item: selection starts and ends, then the evaluation rows are cut out and read (consecutive reads as one)
    const order = events.filter((e, i) => !(e === "read:test" && events[i - 1] === "read:test"));
    expect(order).toEqual(items.flatMap(() => ["select:start", "select:end", "restrict:test", "read:test"]));
    // and the words say so
    for (const item of items) {
      expect(r.body.selection[item].by).toBe("cross-fit");
      expect(r.body.selection[item].note).toMatch(/^chosen by 5-fold cross-fitting on calibration; /);
    }
    expect(r.body.fit).toMatchObject({
      fitSplit: "calibration",
      evalSplit: "test",
      selectionSplit: null,
      method: "auto",
      estimatedBy: "evaluation split",
      caveat: null,
    });
  });

  it("honours a forced method for every item, with no selection", async () => {
    const r = await post(`/api/runs/${three.id}/calibrations`, { method: "platt", resamples: 100 });
    expect(r.status).toBe(201);
    for (const [item, q] of Object.entries(r.body.file.questions)) {
      expect(q.method).toBe("platt");
      expect(r.body.selection[item]).toMatchObject({ by: "user", verdict: "forced" });
      expect(r.body.selection[item].note).toMatch(/platt/);
      expect(r.body.candidates[item].find((c) => c.chosen)?.method).toBe("platt");
    }
    expect(r.body.fit.method).toBe("platt");
  });

  it("compares candidates on a separate selection split when asked", async () => {
    const r = await post(`/api/runs/${three.id}/calibrations`, {
      item: "species",
      selectionSplit: "train",
      methods: ["temperature", "platt"],
      resamples: 100,
    });
    expect(r.status).toBe(201);
    expect(r.body.selection.species).toMatchObject({ by: "selection-split", on: "train" });
    expect(r.body.selection.species.note).toMatch(/^chosen on the separate train split; /);
    expect(r.body.fit.selectionSplit).toBe("train");
    const n = r.body.fit.n.species;
    expect(n.selection).toBeGreaterThan(0);
    expect(n.selection).not.toBe(n.fit);
    expect(r.body.candidates.species.map((c) => c.method).sort()).toEqual([
      "identity",
      "platt",
      "temperature",
    ]);
  });

  it("writes the split fields and how each method was selected into the file", async () => {
    const fitted = await post(`/api/runs/${three.id}/calibrations`, { item: "sex", resamples: 100 });
    expect(fitted.status).toBe(201);
    const file = await wb.get<Calibration["file"]>(`/api/calibrations/${fitted.body.id}/file`);
    expect(file.body.source.fit_split).toBe("calibration");
    expect(file.body.source.eval_split).toBe("test");
    expect(validateCalibrationFile(file.body).ok).toBe(true);
    const q = file.body.questions.sex;
    expect(q.selection?.by).toBe("cross-fit");
    expect(q.selection?.note).toBe(fitted.body.selection.sex.note);
    expect(q.selection?.note).toMatch(/cross-fitting on calibration/);
    expect(q.metrics?.estimated_by).toBe("evaluation split");
  });
});

describe("a run with one split", () => {
  it("cross-fits on it and says what that costs instead of refusing", async () => {
    const r = await post(`/api/runs/${oneSplit.id}/calibrations`, { item: "species", resamples: 100 });
    expect(r.status).toBe(201);
    expect(r.body.fit).toMatchObject({ fitSplit: "test", evalSplit: "crossfit", estimatedBy: "cross-fit" });
    expect(r.body.fit.caveat).toMatch(
      /one split: the after-metrics are cross-fit estimates on the test split/,
    );
    expect(r.body.file.source).toMatchObject({ fit_split: "test", eval_split: "crossfit" });
    expect(r.body.fit.n.species.eval).toBe(r.body.fit.n.species.fit);
  });
});

describe("degenerate fit data", () => {
  it("warns in the response and the file, keeps identity in auto and finite parameters when forced", async () => {
    // the calibration split of species made all-correct at confidence 0.9 (separable data)
    const calibration = SPLIT_NAMES.indexOf("calibration");
    const original = AnalysisData.prototype.itemData;
    const spy = vi.spyOn(AnalysisData.prototype, "itemData").mockImplementation(async function (
      this: AnalysisData,
      ...args: Parameters<typeof original>
    ) {
      const d = await original.apply(this, args);
      if (d.spec.name !== "species") return d;
      const probs = Float64Array.from(d.probs);
      for (let u = 0; u < d.m; u++) {
        if (d.split[d.rowOf[u]] !== calibration) continue;
        for (let j = 0; j < d.k; j++) probs[u * d.k + j] = j === d.gold[u] ? 0.9 : 0.1 / (d.k - 1);
      }
      return { ...d, probs };
    });
    try {
      const auto = await post(`/api/runs/${three.id}/calibrations`, { item: "species", resamples: 100 });
      expect(auto.status).toBe(201);
      expect(auto.body.warnings.species.join(" ")).toMatch(/correct/);
      expect(auto.body.selection.species.verdict).toBe("degenerate");
      expect(auto.body.file.questions.species.method).toBe("identity");
      const file = await wb.get<Calibration["file"]>(`/api/calibrations/${auto.body.id}/file`);
      expect(file.body.questions.species.warnings?.join(" ")).toMatch(/correct/);
      expect(file.body.questions.species.selection?.verdict).toBe("degenerate");
      const forced = await post(`/api/runs/${three.id}/calibrations`, {
        item: "species",
        method: "temperature",
        resamples: 100,
      });
      expect(forced.status).toBe(201);
      expect(forced.body.file.questions.species.method).toBe("temperature");
      // a weak prior keeps T finite and at or above the library's documented floor (0.05)
      const t = (forced.body.file.questions.species as unknown as { params: { temperature: number } }).params
        .temperature;
      expect(Number.isFinite(t)).toBe(true);
      expect(t).toBeGreaterThanOrEqual(0.05);
      expect(forced.body.warnings.species.join(" ")).toMatch(/correct/);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("bad fit requests", () => {
  it("answer 400 saying what would be right", async () => {
    const magic = await post(`/api/runs/${three.id}/calibrations`, { method: "magic" });
    expect(magic.status).toBe(400);
    expect(errorOf(magic).message).toMatch(/auto/);
    expect(errorOf(magic).message).toMatch(/temperature/);
    const sameAsFit = await post(`/api/runs/${three.id}/calibrations`, { selectionSplit: "calibration" });
    expect(sameAsFit.status).toBe(400);
    expect(errorOf(sameAsFit).message).toMatch(/third split/);
    const sameAsEval = await post(`/api/runs/${three.id}/calibrations`, { selectionSplit: "test" });
    expect(sameAsEval.status).toBe(400);
    expect(errorOf(sameAsEval).message).toMatch(/evaluation split/);
    const forcedAndSelected = await post(`/api/runs/${three.id}/calibrations`, {
      selectionSplit: "train",
      method: "beta",
    });
    expect(forcedAndSelected.status).toBe(400);
    expect(errorOf(forcedAndSelected).message).toMatch(/forced/);
    const missing = await post(`/api/runs/${oneSplit.id}/calibrations`, { selectionSplit: "train" });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).message).toMatch(/no train split/);
  });
});
