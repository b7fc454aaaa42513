import {
  applyCalibration,
  NOTHING_LEARNED,
  NothingLearnedError,
  nll,
  validateCalibrationFile,
} from "@decision-workbench/calibration";
import type { Task } from "@decision-workbench/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrationFile, fitItem } from "../../src/analysis/calibrate.js";
import { taskSpecs } from "../../src/analysis/item-spec.js";
import { type ItemData, itemData, restrictRows, restrictSplits } from "../../src/analysis/matrix.js";
import type { PredictionRow } from "../../src/storage/types.js";
import { decisionRows, escalatedRow, startServer } from "./fixtures.js";

let penguins: { rows: PredictionRow[]; task: Task; hash: string; fingerprint: string; endpoint: string };
let spam: { rows: PredictionRow[]; task: Task };
let close: () => Promise<void>;

beforeAll(async () => {
  const server = await startServer();
  close = server.close;
  penguins = await decisionRows({ url: server.url, dataset: "penguins" });
  spam = await decisionRows({ url: server.url, dataset: "spam-assassin", limit: 300 });
});

afterAll(async () => {
  await close?.();
});

function item(set: { rows: PredictionRow[]; task: Task }, name: string): ItemData {
  const spec = taskSpecs(set.task).find((s) => s.name === name)!;
  return itemData(
    spec,
    set.rows.filter((r) => r.item === name),
  );
}

const source = () => ({
  fingerprint: penguins.fingerprint,
  endpoint: penguins.endpoint,
  model: "workbench-latest",
  served_by: ["bayes-2"],
  dataset: { name: "penguins", sha256: penguins.hash },
  fit_split: "calibration",
  eval_split: "test",
});

describe("fitItem", () => {
  it("compares every candidate by cross-fitting on the fit split and evaluates the winner once on test", () => {
    const d = item(penguins, "body_mass");
    const cal = restrictSplits(d, ["calibration"]);
    const test = restrictSplits(d, ["test"]);
    const fit = fitItem(cal, test, { resamples: 200 });
    const methods = fit.candidates.map((c) => c.method);
    expect(methods[0]).toBe("identity");
    expect(methods).toEqual(
      expect.arrayContaining(["temperature", "vector", "platt", "isotonic", "histogram", "beta"]),
    );
    const chosen = fit.candidates.filter((c) => c.chosen);
    expect(chosen).toHaveLength(1);
    expect(fit.question.method).toBe(chosen[0].method);
    expect(fit.selection.by).toBe("cross-fit");
    expect(fit.selection.note).toMatch(/^chosen by 5-fold cross-fitting on calibration; /);
    // a method other than identity is kept only with a paired improvement whose interval lies above 0
    if (chosen[0].method === "identity")
      expect(["identity", "indistinguishable"]).toContain(fit.selection.verdict);
    else {
      expect(fit.selection.verdict).toBe("improvement");
      expect(chosen[0].improvement![1]).toBeGreaterThan(0);
    }
    // held-out candidate scores are cross-fits of calibration: as many rows as calibration, none of test
    expect(fit.estimatedBy).toBe("evaluation split");
    expect(fit.n).toEqual({ fit: cal.m, eval: test.m });
    expect(fit.before.reduce((s, b) => s + b.count, 0)).toBe(test.m);
    expect(fit.after.reduce((s, b) => s + b.count, 0)).toBe(test.m);
    // the after-metrics are the chosen calibrator applied to test
    const file = calibrationFile(source(), { body_mass: fit });
    const probs = applyCalibration(file, "body_mass", { probs: test.probs, k: test.k });
    expect(fit.question.metrics!.after!.nll[0]).toBeCloseTo(nll({ probs, k: test.k, gold: test.gold }), 10);
  });

  it("chooses the same method whatever the evaluation split holds", () => {
    const d = item(penguins, "species");
    const cal = restrictSplits(d, ["calibration"]);
    const test = restrictSplits(d, ["test"]);
    const flipped = { ...test, gold: test.gold.map((g) => (g + 1) % test.k) };
    const a = fitItem(cal, test, { resamples: 100 });
    const b = fitItem(cal, flipped, { resamples: 100 });
    expect(b.question.method).toBe(a.question.method);
    expect(b.candidates.map((c) => c.heldOut)).toEqual(a.candidates.map((c) => c.heldOut));
    expect(b.question.metrics!.after!.nll[0]).not.toBe(a.question.metrics!.after!.nll[0]);
  });

  it("fits temperature scaling on calibration and reports test before and after, accuracy unchanged", () => {
    const d = item(penguins, "species");
    const test = restrictSplits(d, ["test"]);
    const fit = fitItem(restrictSplits(d, ["calibration"]), test, {
      methods: ["temperature"],
      targetRisk: 0.05,
      resamples: 200,
    });
    expect(fit.candidates.map((c) => c.method)).toEqual(["identity", "temperature"]);
    const q = fit.question;
    expect(q.method).toBe(fit.candidates.find((c) => c.chosen)!.method);
    const t = fitItem(restrictSplits(d, ["calibration"]), test, { methods: ["temperature"], resamples: 200 });
    const temp = t.candidates.find((c) => c.method === "temperature")!;
    const identity = t.candidates.find((c) => c.method === "identity")!;
    // temperature never moves the argmax
    expect(temp.heldOut!.accuracy[0]).toBe(identity.heldOut!.accuracy[0]);
    expect(q.threshold!.target_risk).toBe(0.05);
    expect(q.metrics!.before!.ece[0]).toBeGreaterThanOrEqual(0);
    // the file applies to the test probabilities and reproduces the after-bins
    const file = calibrationFile(source(), { species: fit });
    const after = applyCalibration(file, "species", { probs: test.probs, k: test.k });
    expect(after.length).toBe(test.probs.length);
  });

  it("writes a calibration file that validates against the schema", () => {
    const fits = Object.fromEntries(
      ["species", "body_mass", "sex"].map((name) => {
        const d = item(penguins, name);
        return [
          name,
          fitItem(restrictSplits(d, ["calibration"]), restrictSplits(d, ["test"]), { resamples: 100 }),
        ];
      }),
    );
    const file = calibrationFile(source(), fits);
    const v = validateCalibrationFile(JSON.parse(JSON.stringify(file)));
    expect(v.ok).toBe(true);
    expect(Object.keys(file.questions)).toEqual(["species", "body_mass", "sex"]);
    expect(file.questions.sex.options).toEqual(["female", "male", "not stated"]);
    expect(file.questions.body_mass.kind).toBe("score");
  });

  it("cross-fits on the fit split when there is no evaluation split", () => {
    const d = item(penguins, "species");
    const cal = restrictSplits(d, ["calibration"]);
    const fit = fitItem(cal, null, { methods: ["temperature", "platt"], resamples: 100 });
    expect(fit.n).toEqual({ fit: cal.m, eval: cal.m });
    expect(fit.candidates).toHaveLength(3);
    const chosen = fit.candidates.find((c) => c.chosen)!;
    expect(fit.question.metrics!.after!.nll[0]).toBeCloseTo(chosen.heldOut!.nll[0], 12);
  });

  it("fits a forced method on fewer rows than folds, in-sample, and says so", () => {
    const d = restrictSplits(item(penguins, "species"), ["calibration"]);
    const few = restrictRows(d, (i) => i < 4);
    expect(few.m).toBe(4);
    const fit = fitItem(few, null, { method: "temperature", resamples: 50 });
    expect(fit.question.method).toBe("temperature");
    expect(fit.selection).toMatchObject({ by: "user", verdict: "forced" });
    expect(fit.warnings.join(" ")).toMatch(/no out-of-fold probabilities/);
    expect(fit.warnings.join(" ")).toMatch(/one split/);
    expect(fit.after.reduce((s, b) => s + b.count, 0)).toBe(4);
    // auto on so few rows tries nothing but identity
    const auto = fitItem(few, null, { resamples: 50 });
    expect(auto.question.method).toBe("identity");
    expect(auto.candidates.filter((c) => c.heldOut !== null).map((c) => c.method)).toEqual(["identity"]);
  });

  it("fits multi-label items per label and refuses vector scaling for them", () => {
    const d = item(spam, "properties");
    const half = Math.floor(d.status.length / 2);
    const fitPart = restrictRows(d, (i) => i < half);
    const evalPart = restrictRows(d, (i) => i >= half);
    const fit = fitItem(fitPart, evalPart, { resamples: 100 });
    expect(fit.candidates.some((c) => c.method === "vector")).toBe(false);
    expect(fit.question.kind).toBe("multi");
    expect(() => fitItem(fitPart, evalPart, { methods: ["vector"] })).toThrow(/no per-label form/);
  });

  it("learns nothing from escalated rows only", () => {
    const rows = penguins.rows.filter((r) => r.item === "species").slice(0, 10);
    const spec = taskSpecs(penguins.task)[0];
    const escalated = itemData(
      spec,
      rows.map((r, i) => escalatedRow(r, `e${i}`)),
    );
    expect(() => fitItem(escalated, null)).toThrow(NothingLearnedError);
    expect(() => fitItem(escalated, null)).toThrow(NOTHING_LEARNED);
  });
});
