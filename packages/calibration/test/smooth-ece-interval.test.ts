import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import { smoothEceEstimate, wilsonInterval } from "../src/index.js";
import { smoothEceUnchecked } from "../src/metrics/smooth-ece.js";
import { smoothEceEstimateUnchecked } from "../src/metrics/smooth-ece-bootstrap.js";

// Coverage of smoothEceEstimate's interval by simulation: n = 1000 items with p uniform on [0, 1] and
// P(y = 1 | p) = g(p), a known miscalibration; the truth is smECE of the population, computed on a million-point
// quadrature of it (p = (i + 1/2) / N with the expected outcome g(p) in place of a draw).

const N_POP = 1_000_000;
function populationSmoothEce(g: (p: number) => number): number {
  const p = Float64Array.from({ length: N_POP }, (_, i) => (i + 0.5) / N_POP);
  return smoothEceUnchecked({ p, y: Float64Array.from(p, g) }, N_POP).ece;
}

function coverage(g: (p: number) => number, trials: number, seed: number, resamples = 300) {
  const truth = populationSmoothEce(g);
  const rng = mulberry32(seed);
  let covered = 0;
  let pointInside = 0;
  let pluginAbove = 0;
  for (let t = 0; t < trials; t++) {
    const p = Float64Array.from({ length: 1000 }, () => rng.float());
    const y = Uint8Array.from(p, (q) => (rng.float() < g(q) ? 1 : 0));
    // smoothEceEstimate's steps, the plug-in computed once
    const plugin = smoothEceUnchecked({ p, y }, 1000);
    const [point, low, high] = smoothEceEstimateUnchecked(
      { p, y },
      plugin.ece,
      plugin.sigma,
      resamples,
      t,
      0.95,
    );
    if (low <= truth && truth <= high) covered++;
    if (low <= point && point <= high) pointInside++;
    if (plugin.ece > truth) pluginAbove++;
  }
  console.log(
    `smECE ${truth.toFixed(4)}: coverage ${covered / trials}, plug-in above truth ${pluginAbove / trials}`,
  );
  return {
    truth,
    covered: covered / trials,
    pointInside: pointInside / trials,
    pluginAbove: pluginAbove / trials,
  };
}

describe("smoothEceEstimate: bias-corrected point, hull of basic bootstrap intervals of bias-corrected estimators", () => {
  it("covers a moderate miscalibration (overconfident, smECE ~ 0.07) at least 93 % of the time", () => {
    const r = coverage((p) => 0.5 + 0.7 * (p - 0.5), 250, 101, 1000);
    expect(r.truth).toBeGreaterThan(0.06);
    expect(r.covered).toBeGreaterThanOrEqual(0.93);
    expect(r.pointInside).toBe(1);
  }, 120_000);

  it("covers a mild miscalibration (smECE ~ 0.025, plug-in biased up) at least 93 % of the time", () => {
    const r = coverage((p) => 0.5 + 0.9 * (p - 0.5), 250, 202);
    expect(r.truth).toBeLessThan(0.03);
    // the plug-in is above the truth in most samples: the bias the interval has to remove
    expect(r.pluginAbove).toBeGreaterThan(0.8);
    expect(r.covered).toBeGreaterThanOrEqual(0.93);
    expect(r.pointInside).toBe(1);
  }, 120_000);

  it("covers 0 for a perfectly calibrated model at least 93 % of the time (its low end reaches 0)", () => {
    const r = coverage((p) => p, 250, 303);
    expect(r.truth).toBeLessThan(1e-6);
    expect(r.pluginAbove).toBe(1);
    expect(r.covered).toBeGreaterThanOrEqual(0.93);
    expect(r.pointInside).toBe(1);
  }, 120_000);

  it("keeps an honest width when every outcome agrees and the resamples cannot vary", () => {
    // 20 items at confidence 0.9, all right: every resample is the same, yet 20 outcomes leave the accuracy (and so
    // the error |0.9 - accuracy|) uncertain by about a binomial interval's width
    for (const [n, conf] of [
      [20, 0.9],
      [20, 0.7],
      [60, 0.8],
    ] as const) {
      const p = new Float64Array(n).fill(conf);
      const [point, low, high] = smoothEceEstimate({ p, y: new Uint8Array(n).fill(1) }, { resamples: 300 });
      const [wLow, wHigh] = wilsonInterval(n, n);
      expect(point).toBeGreaterThan(1 - conf - 0.01);
      expect(low).toBeLessThanOrEqual(point);
      expect(high).toBeGreaterThanOrEqual(point);
      expect(high - low).toBeGreaterThan(0.5 * (wHigh - wLow));
      expect(high - low).toBeLessThan(2 * (wHigh - wLow) + 0.1);
      // the spread is the Bernoulli(p) sd of the mean residual: z sqrt(p (1 - p) / n) on the upper side
      expect(high - point).toBeCloseTo(1.959964 * Math.sqrt((conf * (1 - conf)) / n), 2);
    }
  });

  it("is seeded, checks its input and options", () => {
    const rng = mulberry32(3);
    const p = Float64Array.from({ length: 500 }, () => rng.float());
    const y = Uint8Array.from(p, (q) => (rng.float() < q * q ? 1 : 0));
    const a = smoothEceEstimate({ p, y }, { seed: 5, resamples: 200 });
    expect(smoothEceEstimate({ p, y }, { seed: 5, resamples: 200 })).toEqual(a);
    expect(a[1]).toBeLessThan(a[0]);
    expect(a[2]).toBeGreaterThan(a[0]);
    expect(() => smoothEceEstimate({ p: [], y: [] })).toThrow(/no items/);
    expect(() => smoothEceEstimate({ p, y }, { resamples: 0 })).toThrow(
      /resamples must be a positive integer/,
    );
    expect(() => smoothEceEstimate({ p: [0.5], y: [2] })).toThrow(/outcomes must be 0 or 1/);
  });
});
