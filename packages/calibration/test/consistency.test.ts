// The consistency resampling test of "perfectly calibrated" [Broecker & Smith 2007]: outcomes redrawn as
// Bernoulli(confidence) with the predictions held fixed, the equal-width ECE recomputed, p = (1 + #{redrawn >=
// observed}) / (resamples + 1).
import { describe, expect, it } from "vitest";
import { widthEdges } from "../src/binning/edges.js";
import { consistencyTest } from "../src/bootstrap/consistency.js";
import { mulberry32 } from "../src/bootstrap/random.js";
import { ece } from "../src/metrics/ece.js";
import { binStarts } from "../src/report/bias-bound.js";
import { calibrationReport } from "../src/report/report.js";
import { synthetic } from "./synthetic.js";

/** n items with confidence p ~ U(0.3, 1) and outcome Bernoulli(truth(p)), sorted by confidence. */
function binary(n: number, seed: number, truth: (p: number) => number) {
  const rng = mulberry32(seed);
  const conf = Float64Array.from({ length: n }, () => 0.3 + 0.7 * rng.float()).sort();
  const cor = Uint8Array.from(conf, (p) => (rng.float() < truth(p) ? 1 : 0));
  return { conf, cor, ends: binStarts(conf, widthEdges(15)) };
}

describe("consistency resampling", () => {
  it("gives roughly uniform p-values for calibrated data: rejection rate at 0.05 in [0.02, 0.09] over 200 trials", () => {
    let rejections = 0;
    let below50 = 0;
    for (let t = 0; t < 200; t++) {
      const { conf, cor, ends } = binary(1000, 7 + t, (p) => p);
      const r = consistencyTest(conf, cor, ends, 15, 200, t);
      if (r.pValue <= 0.05) rejections++;
      if (r.pValue <= 0.5) below50++;
    }
    expect(rejections / 200).toBeGreaterThanOrEqual(0.02);
    expect(rejections / 200).toBeLessThanOrEqual(0.09);
    expect(below50 / 200).toBeGreaterThan(0.4);
    expect(below50 / 200).toBeLessThan(0.6);
  });

  it("gives p-values near 0 for clearly miscalibrated data (accuracy 0.08 below confidence)", () => {
    for (let t = 0; t < 20; t++) {
      const { conf, cor, ends } = binary(1000, 500 + t, (p) => Math.max(0, p - 0.08));
      const r = consistencyTest(conf, cor, ends, 15, 200, t);
      expect(r.pValue).toBe(1 / 201); // no redraw reaches the observed ECE: the +1 correction's floor
    }
  });

  it("compares the redraws with the ECE the metric reports, is seeded, and never gives 0", () => {
    const { conf, cor, ends } = binary(300, 3, (p) => p);
    const a = consistencyTest(conf, cor, ends, 15, 99, 5);
    expect(consistencyTest(conf, cor, ends, 15, 99, 5)).toEqual(a);
    expect(a).toMatchObject({ statistic: "ece", binning: "width", resamples: 99 });
    expect(a.pValue).toBeGreaterThan(0);
    expect(a.pValue).toBeLessThanOrEqual(1);
    expect(Math.round(a.pValue * 100)).toBe(a.pValue * 100); // a multiple of 1 / (99 + 1)
    // all items at confidence 1 and correct: every redraw equals the observed ECE (0), so p = 1
    const sure = new Float64Array(50).fill(1);
    const all = consistencyTest(sure, new Uint8Array(50).fill(1), binStarts(sure, widthEdges(15)), 15, 40, 1);
    expect(all.pValue).toBe(1);
    expect(ece({ p: sure, y: new Uint8Array(50).fill(1) })).toBe(0);
  });

  it("draws one stream over every redraw and item, as a counter: the p-value of a plain loop over it", () => {
    // the test draws each redraw in a call of its own, from the state the stream reaches after the redraws before
    const { conf, cor, ends } = binary(777, 11, (p) => p - 0.02);
    const seed = 9;
    let s = (seed ^ 0x2545f491) | 0;
    const draw = () => {
      s = (s + 0x6d2b79f5) | 0;
      let z = Math.imul(s ^ (s >>> 15), 1 | s);
      z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
      return (z ^ (z >>> 14)) >>> 1;
    };
    const observed = ece({ p: conf, y: cor });
    let atLeast = 0;
    for (let r = 0; r < 60; r++) {
      const y = Uint8Array.from(conf, (p) => (draw() < Math.floor(p * 2 ** 31) ? 1 : 0));
      if (ece({ p: conf, y }) >= observed - observed * 1e-12) atLeast++;
    }
    const pValue = (1 + atLeast) / 61;
    expect(pValue).toBeGreaterThan(1 / 61);
    expect(pValue).toBeLessThan(1);
    expect(consistencyTest(conf, cor, ends, 15, 60, seed).pValue).toBe(pValue);
  });

  it("reaches the report: calibrated runs pass, overconfident runs fail", () => {
    const calibrated = calibrationReport(synthetic({ n: 2000, k: 4, temperature: 1, seed: 4 }), {
      resamples: 200,
    });
    const overconfident = calibrationReport(synthetic({ n: 2000, k: 4, temperature: 0.6, seed: 4 }), {
      resamples: 200,
    });
    expect(calibrated.consistency.pValue).toBeGreaterThan(0.05);
    expect(overconfident.consistency.pValue).toBeLessThan(0.01);
    expect(overconfident.consistency.resamples).toBe(200);
  });
});
