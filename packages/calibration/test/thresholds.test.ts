import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import {
  clopperPearsonUpper,
  coverageAtRisk,
  escalationThreshold,
  labelThresholds,
  riskAtCoverage,
  riskCoverage,
  unknownAnalytics,
  unknownStats,
} from "../src/index.js";

const top = { p: [0.9, 0.8, 0.8, 0.6], y: [1, 0, 1, 0] };

describe("risk-coverage (hand-computed)", () => {
  it("curve and AURC with ties in expectation", () => {
    const rc = riskCoverage(top);
    expect(rc.threshold).toEqual([0.9, 0.8, 0.6]);
    expect(rc.coverage).toEqual([0.25, 0.75, 1]);
    expect(rc.risk[0]).toBe(0);
    expect(rc.risk[1]).toBeCloseTo(1 / 3, 15);
    expect(rc.risk[2]).toBe(0.5);
    // k = 1: 0; k = 2: 0.5 expected errors / 2; k = 3: 1 / 3; k = 4: 2 / 4
    expect(rc.aurc).toBeCloseTo((0 + 0.25 + 1 / 3 + 0.5) / 4, 15);
  });
  it("coverage at a risk target and risk at a coverage target", () => {
    expect(coverageAtRisk(top, 0.34)).toEqual({ coverage: 0.75, risk: 1 / 3, threshold: 0.8 });
    expect(coverageAtRisk(top, 0)).toEqual({ coverage: 0.25, risk: 0, threshold: 0.9 });
    expect(riskAtCoverage(top, 0.5)).toEqual({ coverage: 0.75, risk: 1 / 3, threshold: 0.8 });
    expect(riskAtCoverage(top, 1).risk).toBe(0.5);
  });
  it("accepts multiclass data directly", () => {
    const d = { probs: Float64Array.from([0.9, 0.1, 0.2, 0.8, 0.6, 0.4]), k: 2, gold: [0, 0, 0] };
    expect(riskCoverage(d).risk).toEqual([0, 0.5, 1 / 3]);
  });
});

describe("escalation threshold", () => {
  it("point: the lowest threshold whose answered-alone error is under the target", () => {
    const t = escalationThreshold(top, { targetRisk: 0.34 });
    expect(t.minConfidence).toBe(0.8);
    expect(t.chosen).toMatchObject({ n: 4, answered: 3, errors: 1, coverage: 0.75 });
    expect(t.chosen.riskUpper).toBeCloseTo(clopperPearsonUpper(1, 3), 15);
    expect(escalationThreshold(top, { targetRisk: 0.1 }).minConfidence).toBe(0.9);
  });
  it("no threshold meets the target: null (escalate everything)", () => {
    const t = escalationThreshold({ p: [0.9, 0.7], y: [0, 0] }, { targetRisk: 0.05 });
    expect(t.minConfidence).toBeNull();
    expect(t.chosen.answered).toBe(0);
  });
  it("upper: the Clopper-Pearson bound is more conservative, and is verified on the other split", () => {
    const rng = mulberry32(2);
    const make = (n: number) => {
      const p = Float64Array.from({ length: n }, () => 0.5 + 0.5 * rng.float());
      const y = Uint8Array.from(p, (q) => (rng.float() < q ? 1 : 0));
      return { p, y };
    };
    const choose = make(4000);
    const verify = make(4000);
    const point = escalationThreshold(choose, { targetRisk: 0.1, verify });
    const upper = escalationThreshold(choose, { targetRisk: 0.1, method: "upper", verify });
    expect(point.minConfidence).not.toBeNull();
    expect(upper.minConfidence).not.toBeNull();
    expect(upper.minConfidence!).toBeGreaterThan(point.minConfidence!);
    expect(upper.chosen.riskUpper).toBeLessThanOrEqual(0.1);
    expect(upper.verified!.risk).toBeLessThanOrEqual(0.1);
    expect(upper.verified!.withinTarget).toBe(true);
    const [lo, hi] = upper.verified!.interval;
    expect(lo).toBeLessThanOrEqual(upper.verified!.risk);
    expect(hi).toBeGreaterThanOrEqual(upper.verified!.risk);
    // calibrated, p uniform on [.5, 1]: the error above t is (1 - t) / 2, at most 0.1 from t = 0.8
    expect(point.minConfidence!).toBeGreaterThan(0.75);
  });
  it("rejects a bad target", () => {
    expect(() => escalationThreshold(top, { targetRisk: 1.5 })).toThrow(/targetRisk must be in \[0, 1\)/);
  });
});

describe("multi-label thresholds", () => {
  // one label: p = .9 .8 .6 .4 .3 .1 with labels 1 0 1 1 0 0
  const d = { probs: Float64Array.from([0.9, 0.8, 0.6, 0.4, 0.3, 0.1]), k: 1, labels: [1, 0, 1, 1, 0, 0] };
  it("F1-optimal threshold against the fixed 0.5, with Lipton's F1 / 2", () => {
    const [t] = labelThresholds(d);
    expect(t.threshold).toBe(0.4);
    expect(t.score).toBeCloseTo(6 / 7, 15);
    expect(t.precision).toBe(0.75);
    expect(t.recall).toBe(1);
    expect(t.scoreAtHalf).toBeCloseTo(2 / 3, 15);
    expect(t.liptonThreshold).toBeCloseTo(3 / 7, 15);
  });
  it("F-beta weighs precision (beta < 1) or recall (beta > 1)", () => {
    const fb = (tp: number, fp: number, fn: number, b: number) =>
      ((1 + b * b) * tp) / ((1 + b * b) * tp + b * b * fn + fp);
    const [half] = labelThresholds(d, { fbeta: 0.5 });
    // candidates: .9 (1,0,2) .8 (1,1,2) .6 (2,1,1) .4 (3,1,0) ...
    const best = Math.max(
      fb(1, 0, 2, 0.5),
      fb(1, 1, 2, 0.5),
      fb(2, 1, 1, 0.5),
      fb(3, 1, 0, 0.5),
      fb(3, 2, 0, 0.5),
      fb(3, 3, 0, 0.5),
    );
    expect(half.score).toBeCloseTo(best, 15);
  });
  it("precision at a recall floor", () => {
    const [t] = labelThresholds(d, { recallFloor: 1 });
    expect(t.threshold).toBe(0.4);
    expect(t.score).toBe(0.75);
    const [none] = labelThresholds({ probs: Float64Array.from([0.2, 0.7]), k: 1, labels: [0, 0] });
    expect(none.threshold).toBeNull();
  });
});

describe("Unknown analytics (hand-computed)", () => {
  it("rates, precision / recall and the risk on answered items", () => {
    const d = {
      probs: Float64Array.from([0.1, 0.2, 0.7, 0.6, 0.3, 0.1, 0.2, 0.2, 0.6, 0.5, 0.4, 0.1, 0.3, 0.6, 0.1]),
      k: 3,
      gold: [2, 0, 1, 2, 0],
    };
    const u = unknownAnalytics(d, 2);
    expect(u.predictedRate).toBe(0.4);
    expect(u.goldRate).toBe(0.4);
    expect(u.precision).toBe(0.5);
    expect(u.recall).toBe(0.5);
    expect(u.answered).toBe(3);
    expect(u.answeredRisk).toBeCloseTo(2 / 3, 15);
    expect(() => unknownAnalytics(d, 3)).toThrow(/unknownOption must be an option index in 0..2/);
    expect(
      unknownStats({ predicted: [true, true], gold: [false, true], correct: [0, 1] }).answeredRisk,
    ).toBeNull();
  });
});
