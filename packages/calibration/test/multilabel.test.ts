import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import { fileLabelMetrics } from "../src/file/build.js";
import {
  applyCalibration,
  buildCalibrationFile,
  calibrateQuestion,
  calibrationReport,
  checkCalibration,
  chooseCalibrator,
  classwiseEce,
  labelCalibrator,
  multiLabelTop,
} from "../src/index.js";

/** k labels; each label's reported probability is sharpened (overconfident) relative to its true rate. */
function multiLabel(n: number, k: number, seed: number) {
  const rng = mulberry32(seed);
  const probs = new Float64Array(n * k);
  const labels = new Uint8Array(n * k);
  for (let t = 0; t < n * k; t++) {
    const truth = rng.float();
    labels[t] = rng.float() < truth ? 1 : 0;
    const z = Math.log(truth / (1 - truth)) * 2; // reported logit twice the true one
    probs[t] = 1 / (1 + Math.exp(-z));
  }
  return { probs, k, labels };
}

describe("multi-label questions end to end", () => {
  const fit = multiLabel(2000, 3, 1);
  const evalSplit = multiLabel(2000, 3, 2);

  it("report: least-sure-label confidence, all-labels-right outcome, per-label ECE", () => {
    const r = calibrationReport(fit, { resamples: 100 });
    expect(r.kind).toBe("multi-label");
    const top = multiLabelTop(fit);
    let right = 0;
    for (const y of top.y) right += y;
    expect(r.accuracy[0]).toBeCloseTo(right / 2000, 15);
    expect(r.classwiseEce).toBeCloseTo(classwiseEce(fit), 15);
    expect(r.classwiseEce).toBeGreaterThan(0.05); // twice-sharpened logits are clearly overconfident
  });

  it("per-label Platt halves the logits back, and choose prefers it over identity", () => {
    const params = labelCalibrator("platt").fit(fit) as { labels: { a: number; b: number }[] };
    for (const l of params.labels) {
      expect(l.a).toBeGreaterThan(0.4);
      expect(l.a).toBeLessThan(0.6);
    }
    const choice = chooseCalibrator(fit, { resamples: 100 });
    expect(choice.winner).not.toBe("identity");
    expect(choice.candidates.map((c) => c.method)).not.toContain("vector");
  });

  it("calibration file: per-label params, apply and check", () => {
    const entry = calibrateQuestion(fit, evalSplit, {
      kind: "multi",
      options: ["x", "y", "z"],
      method: "platt",
      targetRisk: 0.3,
      resamples: 100,
    });
    const file = buildCalibrationFile({
      source: {
        fingerprint: "decision|http://127.0.0.1:8009/v1/decision|m",
        endpoint: "http://127.0.0.1:8009/v1/decision",
        model: "m",
        served_by: ["m-1"],
        dataset: { name: "d", sha256: "0".repeat(64) },
        fit_split: "calibration",
        eval_split: "test",
      },
      questions: { topics: entry },
    });
    const q = applyCalibration(file, "topics", evalSplit);
    expect(q).toHaveLength(evalSplit.probs.length);
    const after = { ...evalSplit, probs: q };
    expect(classwiseEce(after)).toBeLessThan(classwiseEce(evalSplit));
    const check = checkCalibration(file, {
      fingerprint: file.source.fingerprint,
      questions: { topics: multiLabel(4000, 3, 3) },
    });
    expect(check.reasons).toEqual([]);
    expect(check.ok).toBe(true);
  });

  it("calibration file: per-label ECE and NLL before and after on the evaluation split, bias-aware", () => {
    const entry = calibrateQuestion(fit, evalSplit, {
      kind: "multi",
      options: ["x", "y", "z"],
      method: "platt",
      resamples: 100,
    });
    const metrics = entry.label_metrics!;
    expect(metrics.map((m) => m.label)).toEqual(["x", "y", "z"]);
    const after = multiLabelColumnsAfter(entry.params, evalSplit);
    for (const [j, m] of metrics.entries()) {
      expect(m.n).toBe(2000);
      const column = (d: { probs: Float64Array; labels: Uint8Array }) => ({
        probs: Float64Array.from({ length: 2000 }, (_, i) => d.probs[i * 3 + j]),
        k: 1,
        labels: Uint8Array.from({ length: 2000 }, (_, i) => d.labels[i * 3 + j]),
      });
      // the label alone on the evaluation split: NLL is the report's binary NLL with a percentile interval
      const before = calibrationReport(column(evalSplit), { resamples: 100, seed: j });
      expect(m.before.nll[0]).toBeCloseTo(before.nll[0], 12);
      expect(Math.abs(m.before.nll[1] - before.nll[1])).toBeLessThan(0.03);
      expect(Math.abs(m.before.nll[2] - before.nll[2])).toBeLessThan(0.03);
      expect(m.after.nll[0]).toBeCloseTo(calibrationReport(column(after), { resamples: 10 }).nll[0], 12);
      // ECE: the label's one-vs-rest ECE, bias-corrected; the plug-in and the corrected point inside the interval
      for (const [side, d] of [
        [m.before.ece, evalSplit],
        [m.after.ece, after],
      ] as const) {
        const plugin = classwiseEce(column(d));
        expect(side[1]).toBeLessThanOrEqual(plugin);
        expect(plugin).toBeLessThanOrEqual(side[2]);
        expect(Math.abs(side[0] - plugin)).toBeLessThan(0.02);
      }
      for (const e of [m.before.ece, m.before.nll, m.after.ece, m.after.nll]) {
        expect(e[1]).toBeLessThanOrEqual(e[0]);
        expect(e[0]).toBeLessThanOrEqual(e[2]);
      }
      // twice-sharpened logits: Platt lowers every label's ECE and NLL, beyond the intervals
      expect(m.after.ece[2]).toBeLessThan(m.before.ece[1]);
      expect(m.after.nll[0]).toBeLessThan(m.before.nll[0]);
    }
    // one split: the label metrics are out-of-fold on the fit split, like the other after-metrics
    const one = calibrateQuestion(fit, null, {
      kind: "multi",
      options: ["x", "y", "z"],
      method: "platt",
      resamples: 50,
    });
    expect(one.metrics!.estimated_by).toBe("cross-fit");
    expect(one.label_metrics!.map((m) => m.n)).toEqual([2000, 2000, 2000]);
  });
});

describe("per-label ECE interval in the file", () => {
  it("covers a label's true ECE at least 93 % of the time (n = 1000, 15 equal-width bins, 250 trials)", () => {
    // one label, p uniform on [0, 1], P(y = 1 | p) = g(p) (overconfident); the truth is the population's binned ECE,
    // sum over bins of |integral over the bin of (g(p) - p)|, and a calibrated label's truth 0 for the second column
    const g = (p: number) => 0.5 + 0.75 * (p - 0.5);
    let truth = 0;
    const steps = 15 * 20_000;
    for (let b = 0; b < 15; b++) {
      let s = 0;
      for (let i = 0; i < 20_000; i++) {
        const p = (b * 20_000 + i + 0.5) / steps;
        s += g(p) - p;
      }
      truth += Math.abs(s) / steps;
    }
    expect(truth).toBeGreaterThan(0.05);
    const rng = mulberry32(99);
    const trials = 250;
    let covered = 0;
    let coveredZero = 0;
    let inside = 0;
    for (let t = 0; t < trials; t++) {
      const n = 1000;
      const probs = new Float64Array(2 * n);
      const labels = new Uint8Array(2 * n);
      for (let i = 0; i < n; i++) {
        const p = rng.float();
        const q = rng.float();
        probs[2 * i] = p;
        labels[2 * i] = rng.float() < g(p) ? 1 : 0;
        probs[2 * i + 1] = q;
        labels[2 * i + 1] = rng.float() < q ? 1 : 0;
      }
      const d = { probs, k: 2, labels };
      const [miscal, calibrated] = fileLabelMetrics(
        d,
        d,
        ["a", "b"],
        { resamples: 200, seed: t, level: 0.95 },
        15,
      );
      const e = miscal.before.ece;
      if (e[1] <= truth && truth <= e[2]) covered++;
      if (calibrated.before.ece[1] <= 1e-12) coveredZero++;
      if (e[1] <= e[0] && e[0] <= e[2]) inside++;
    }
    console.log(
      `per-label ECE ${truth.toFixed(4)}: coverage ${covered / trials}, of 0 ${coveredZero / trials}`,
    );
    expect(covered / trials).toBeGreaterThanOrEqual(0.93);
    expect(coveredZero / trials).toBeGreaterThanOrEqual(0.93);
    expect(inside).toBe(trials);
  });
});

/** The evaluation split calibrated by an entry's per-label params. */
function multiLabelColumnsAfter(params: unknown, d: { probs: Float64Array; k: number; labels: Uint8Array }) {
  return { ...d, probs: labelCalibrator("platt").apply(params as never, d) as Float64Array };
}
