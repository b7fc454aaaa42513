import { describe, expect, it } from "vitest";
import { massEdges } from "../src/binning/edges.js";
import { calibrationCurve } from "../src/binning/reliability.js";
import { binaryBrier } from "../src/metrics/brier.js";
import { binaryNll, nll } from "../src/metrics/nll.js";
import { binarySet, maxAbsDiff, multiclassSet, ref } from "./reference.js";

const TOL = 1e-9;

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
