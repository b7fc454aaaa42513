import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import {
  accuracy,
  binaryBrier,
  brier,
  brierDecomposition,
  calibrationReport,
  classwiseEce,
  confusionMatrix,
  debiasedCalibrationError,
  ece,
  mce,
  multiLabelScores,
  nll,
  offByOneAccuracy,
  optionScores,
  rps,
  smoothEce,
  topLabel,
} from "../src/index.js";
import { synthetic } from "./synthetic.js";

const twoClass = {
  probs: Float64Array.from([0.8, 0.2, 0.3, 0.7, 0.6, 0.4, 0.1, 0.9]),
  k: 2,
  gold: [0, 1, 1, 1],
};

describe("binned calibration errors (hand-computed)", () => {
  const b = { p: [0.1, 0.2, 0.3, 0.4, 0.6, 0.9], y: [0, 0, 0, 1, 1, 1] };
  it("ECE with equal-width bins: sum |sum(y) - sum(p)| / N", () => {
    // bins (0, .5] and (.5, 1]: |1 - 1.0| + |2 - 1.5| = 0.5 over 6 items
    expect(ece(b, { bins: 2 })).toBeCloseTo(0.5 / 6, 15);
  });
  it("ECE with equal-mass bins uses the numpy median 0.35 as the edge", () => {
    // bins (.., .35] = {.1, .2, .3} and (.35, ..] = {.4, .6, .9}: |0 - .6| + |3 - 1.9| = 1.7
    expect(ece(b, { bins: 2, binning: "mass" })).toBeCloseTo(1.7 / 6, 15);
  });
  it("MCE is the worst bin", () => {
    expect(mce(b, { bins: 2 })).toBeCloseTo(0.25, 15); // (.5, 1]: |2 - 1.5| / 2
  });
  it("classwise ECE averages the one-vs-rest ECEs", () => {
    expect(classwiseEce(twoClass, { bins: 2 })).toBeCloseTo(0.2, 15);
  });
  it("debiased L2 error subtracts the binomial noise of each bin", () => {
    // mass bins {.2, .2} and {.8, .8}: (.2)^2 - 0 in both -> sqrt(.04)
    expect(debiasedCalibrationError({ p: [0.2, 0.2, 0.8, 0.8], y: [0, 0, 1, 1] }, { bins: 2 })).toBeCloseTo(
      0.2,
      15,
    );
    // noise larger than the gap: clipped at 0
    expect(debiasedCalibrationError({ p: [0.2, 0.2, 0.8, 0.8], y: [0, 1, 1, 1] }, { bins: 2 })).toBe(0);
  });
  it("perfectly calibrated data: ECE shrinks as N grows (about 1 / sqrt(N))", () => {
    const rng = mulberry32(5);
    const at = (n: number) => {
      const p = Float64Array.from({ length: n }, () => rng.float());
      const y = Uint8Array.from(p, (q) => (rng.float() < q ? 1 : 0));
      return ece({ p, y });
    };
    const small = at(1000);
    const mid = at(16000);
    const large = at(256000);
    expect(mid).toBeLessThan(small);
    expect(large).toBeLessThan(mid);
    expect(large).toBeLessThan(0.01);
    expect(small / large).toBeGreaterThan(5); // sqrt(256) = 16 in expectation
  });
  it("miscalibrated data keep their ECE as N grows", () => {
    const rng = mulberry32(6);
    const n = 100000;
    const p = Float64Array.from({ length: n }, () => rng.float());
    const y = Uint8Array.from(p, (q) => (rng.float() < q * q ? 1 : 0)); // true rate p^2: gap p - p^2, mean 1/6
    expect(ece({ p, y }, { bins: 50 })).toBeCloseTo(1 / 6, 2);
  });
});

describe("smooth ECE", () => {
  it("is small for calibrated data, shrinking with N, and finds a miscalibration", () => {
    const rng = mulberry32(8);
    const sample = (n: number, f: (q: number) => number) => {
      const p = Float64Array.from({ length: n }, () => rng.float());
      const y = Uint8Array.from(p, (q) => (rng.float() < f(q) ? 1 : 0));
      return { p, y };
    };
    const a = smoothEce(sample(2000, (q) => q));
    const b = smoothEce(sample(50000, (q) => q));
    const c = smoothEce(sample(50000, (q) => q * q));
    expect(b.ece).toBeLessThan(a.ece);
    expect(b.ece).toBeLessThan(0.02);
    expect(c.ece).toBeGreaterThan(0.1);
    expect(c.ece).toBeLessThan(1 / 6 + 0.01);
    // the bandwidth is the fixed point sigma ~ smECE_sigma, found to 1/1024
    expect(Math.abs(c.sigma - c.ece)).toBeLessThan(0.02);
  });
});

describe("proper scores and classification (hand-computed)", () => {
  it("multiclass Brier sums over options; binary Brier is sklearn's", () => {
    expect(brier(twoClass)).toBeCloseTo(0.25, 15);
    expect(binaryBrier({ p: [0.2, 0.7], y: [0, 1] })).toBeCloseTo((0.04 + 0.09) / 2, 15);
  });
  it("Brier decomposition: reliability - resolution + uncertainty", () => {
    const d = brierDecomposition({ p: [0.2, 0.2, 0.8, 0.8], y: [0, 1, 1, 1] }, { bins: 2 });
    expect(d.brier).toBeCloseTo(0.19, 15);
    expect(d.reliability).toBeCloseTo(0.065, 15);
    expect(d.resolution).toBeCloseTo(0.0625, 15);
    expect(d.uncertainty).toBeCloseTo(0.1875, 15);
    expect(d.residual).toBeCloseTo(0, 15);
    const m = brierDecomposition(twoClass, { bins: 2 });
    expect(m.brier).toBeCloseTo(brier(twoClass), 15);
  });
  it("NLL of the gold option", () => {
    expect(nll(twoClass)).toBeCloseTo(
      -(Math.log(0.8) + Math.log(0.7) + Math.log(0.4) + Math.log(0.9)) / 4,
      14,
    );
  });
  it("RPS and off-by-one accuracy on ordered levels", () => {
    const d = {
      probs: Float64Array.from([0.2, 0.5, 0.3, 0.6, 0.3, 0.1, 0.7, 0.2, 0.1]),
      k: 3,
      gold: [2, 0, 2],
    };
    // (.04 + .49) / 2, (.16 + .01) / 2, (.49 + .81) / 2
    expect(rps(d)).toBeCloseTo((0.265 + 0.085 + 0.65) / 3, 15);
    expect(offByOneAccuracy(d)).toBeCloseTo(2 / 3, 15);
  });
  it("accuracy, confusion matrix, per-option P/R/F1 and macro F1", () => {
    expect(accuracy(twoClass)).toBe(0.75);
    expect(confusionMatrix(twoClass)).toEqual([
      [1, 0],
      [1, 2],
    ]);
    const s = optionScores(twoClass);
    expect(s.options[0].precision).toBe(0.5);
    expect(s.options[0].recall).toBe(1);
    expect(s.options[0].f1).toBeCloseTo(2 / 3, 15);
    expect(s.options[1].f1).toBeCloseTo(0.8, 15);
    expect(s.macroF1).toBeCloseTo((2 / 3 + 0.8) / 2, 15);
    expect(s.microF1).toBe(0.75);
  });
  it("multi-label micro and macro F1 at 0.5 and at per-label thresholds", () => {
    const d = { probs: Float64Array.from([0.9, 0.2, 0.6, 0.7, 0.3, 0.4]), k: 2, labels: [1, 0, 0, 1, 1, 1] };
    // label 0: chosen .9 .6 (gold 1 0 1): tp1 fp1 fn1 -> F1 .5 ; label 1: chosen .7 (gold 0 1 1): tp1 fn1 -> 2/3
    const s = multiLabelScores(d);
    expect(s.labels[0].f1).toBeCloseTo(0.5, 15);
    expect(s.labels[1].f1).toBeCloseTo(2 / 3, 15);
    expect(s.macroF1).toBeCloseTo((0.5 + 2 / 3) / 2, 15);
    expect(s.microF1).toBeCloseTo(4 / 7, 15); // tp 2, fp 1, fn 2
    expect(s.subsetAccuracy).toBeCloseTo(1 / 3, 15); // only item 0 has both labels right
    expect(multiLabelScores(d, [0.3, 0.3]).labels[0].recall).toBe(1);
  });
});

describe("top-label view", () => {
  it("uses the first option on ties, like numpy.argmax", () => {
    const t = topLabel({ probs: Float64Array.from([0.5, 0.5, 0.2, 0.8]), k: 2, gold: [1, 1] });
    expect(Array.from(t.p)).toEqual([0.5, 0.8]);
    expect(Array.from(t.y)).toEqual([0, 1]);
  });
});

describe("bad input gets a clear error", () => {
  it("says what is wrong and what would be right", () => {
    expect(() => ece({ p: [0.2, 1.2], y: [0, 1] })).toThrow(
      /p\[1\] is 1.2; probabilities must be finite numbers in \[0, 1\]/,
    );
    expect(() => ece({ p: [0.2], y: [2] })).toThrow(/y\[0\] is 2; outcomes must be 0 or 1/);
    expect(() => ece({ p: [], y: [] })).toThrow(/no items to measure/);
    expect(() => brier({ probs: Float64Array.from([0.5, 0.5, 1]), k: 2, gold: [0] })).toThrow(
      /not a multiple of k = 2/,
    );
    expect(() => brier({ probs: Float64Array.from([0.5, 0.5]), k: 2, gold: [2] })).toThrow(
      /gold\[0\] is 2; gold must be an option index in 0..1/,
    );
    expect(() => nll({ probs: Float64Array.from([0.5, Number.NaN]), k: 2, gold: [0] })).toThrow(
      /probs\[1\] is NaN/,
    );
    expect(() => ece({ p: [0.5], y: [1] }, { bins: 0 })).toThrow(/bins must be a positive integer/);
    expect(() => calibrationReport(synthetic({ n: 5, k: 2, temperature: 1, seed: 1 }), { level: 2 })).toThrow(
      /level must be in \(0, 1\)/,
    );
  });
});
