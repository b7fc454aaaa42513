import { describe, expect, it } from "vitest";
import { massEdges } from "../src/binning/edges.js";
import { calibrationCurve } from "../src/binning/reliability.js";
import { binaryBrier } from "../src/metrics/brier.js";
import { binaryNll, nll } from "../src/metrics/nll.js";
import { maxAbsDiff, multiclassSet, binarySet as ordinarySet, ref } from "./reference.js";

const TOL = 1e-9;

/** The separable and one-class sets make_reference.py adds for the smoothed fits. */
const degenerate = (ref as unknown as { degenerate_sets: { name: string; p: number[]; y: number[] }[] })
  .degenerate_sets;

/** A binary set by name, ordinary or degenerate. */
function binarySet(name: string): { p: Float64Array; y: Uint8Array } {
  const s = degenerate.find((b) => b.name === name);
  return s ? { p: Float64Array.from(s.p), y: Uint8Array.from(s.y) } : ordinarySet(name);
}

describe("agreement with scikit-learn / numpy (fixtures/reference.json)", () => {
  it("calibration_curve, both strategies, every set and bin count", () => {
    expect(ref.calibration_curve.length).toBeGreaterThan(10);
    for (const c of ref.calibration_curve) {
      const b = binarySet(c.set);
      const ours = calibrationCurve(b, {
        bins: c.bins,
        binning: c.strategy === "uniform" ? "width" : "mass",
      });
      expect(ours.probTrue.length, `${c.set} ${c.strategy} ${c.bins}`).toBe(c.prob_true.length);
      expect(maxAbsDiff(ours.probTrue, c.prob_true)).toBeLessThanOrEqual(TOL);
      expect(maxAbsDiff(ours.probPred, c.prob_pred)).toBeLessThanOrEqual(TOL);
    }
  });

  it("equal-mass edges match numpy.percentile bit for bit", () => {
    for (const e of ref.percentile_edges) {
      const ours = massEdges(binarySet(e.set).p, e.bins);
      expect(Array.from(ours), `${e.set} ${e.bins}`).toEqual(e.edges);
    }
  });

  it("brier_score_loss and binary log_loss", () => {
    for (const s of ref.binary_scores) {
      const b = binarySet(s.set);
      expect(Math.abs(binaryBrier(b) - s.brier_score_loss)).toBeLessThanOrEqual(TOL);
      expect(Math.abs(binaryNll(b) - s.log_loss)).toBeLessThanOrEqual(TOL);
    }
  });

  it("multiclass log_loss, with exact zeros and ones clipped the same way", () => {
    for (const s of ref.multiclass_scores) {
      expect(Math.abs(nll(multiclassSet(s.set)) - s.log_loss)).toBeLessThanOrEqual(TOL);
    }
  });
});

describe("calibrators against scikit-learn / scipy", () => {
  it("the fixtures cover separable and one-class data", () => {
    expect(degenerate.map((d) => d.name)).toEqual(["all-correct-89", "separable-120", "all-wrong-40"]);
    for (const list of [ref.platt, ref.beta, ref.isotonic]) {
      for (const d of degenerate) expect(list.map((r) => r.set)).toContain(d.name);
    }
  });

  it("isotonic regression: knots and predictions, kept inside Platt's smoothed targets", async () => {
    const { isotonicCalibrator } = await import("../src/calibrators/isotonic.js");
    const iso = isotonicCalibrator();
    for (const r of ref.isotonic) {
      const params = iso.fit(binarySet(r.set));
      expect(maxAbsDiff(params.x, r.x_thresholds), r.set).toBeLessThanOrEqual(TOL);
      expect(maxAbsDiff(params.y, r.y_thresholds), r.set).toBeLessThanOrEqual(TOL);
      expect(maxAbsDiff(iso.apply(params, r.test), r.predict_test)).toBeLessThanOrEqual(TOL);
      expect(maxAbsDiff(iso.apply(params, binarySet(r.set).p), r.predict_train)).toBeLessThanOrEqual(TOL);
    }
  });

  it("Platt scaling = scikit-learn's _sigmoid_calibration (Platt's smoothed targets) on the logit", async () => {
    const { plattScaling } = await import("../src/calibrators/platt.js");
    const platt = plattScaling();
    for (const r of ref.platt) {
      const params = platt.fit(binarySet(r.set));
      expect(Math.abs(params.a - r.a), `${r.set} a`).toBeLessThanOrEqual(TOL);
      expect(Math.abs(params.b - r.b), `${r.set} b`).toBeLessThanOrEqual(TOL);
      expect(maxAbsDiff(platt.apply(params, r.test), r.predict_test)).toBeLessThanOrEqual(TOL);
      expect(maxAbsDiff(platt.apply(params, binarySet(r.set).p), r.predict_train)).toBeLessThanOrEqual(TOL);
    }
  });

  it("beta calibration = logistic regression on (ln p, -ln(1 - p)) with Platt's smoothed targets", async () => {
    const { betaCalibration } = await import("../src/calibrators/beta.js");
    const beta = betaCalibration();
    expect(ref.beta.length).toBeGreaterThan(0);
    for (const r of ref.beta) {
      const params = beta.fit(binarySet(r.set));
      expect(Math.abs(params.a - r.a), `${r.set} a`).toBeLessThanOrEqual(TOL);
      expect(Math.abs(params.b - r.b), `${r.set} b`).toBeLessThanOrEqual(TOL);
      expect(Math.abs(params.c - r.c), `${r.set} c`).toBeLessThanOrEqual(TOL);
      expect(maxAbsDiff(beta.apply(params, binarySet(r.set).p), r.predict_train)).toBeLessThanOrEqual(TOL);
    }
  });

  it("temperature scaling finds scipy's minimum of the cross-entropy to smoothed targets", async () => {
    const { temperatureScaling } = await import("../src/calibrators/temperature.js");
    const { nll } = await import("../src/metrics/nll.js");
    const ts = temperatureScaling();
    for (const r of ref.temperature) {
      const data = multiclassSet(r.set);
      const params = ts.fit(data);
      expect(Math.abs(params.temperature - r.temperature), r.set).toBeLessThanOrEqual(1e-6);
      const calibrated = { probs: ts.apply(params, data), k: data.k, gold: data.gold };
      expect(Math.abs(nll(calibrated) - r.nll)).toBeLessThanOrEqual(1e-8);
    }
  });
});
