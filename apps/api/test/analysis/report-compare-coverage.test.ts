// Coverage of the compare page's changes in calibration error (ECE and MCE, both binnings) by simulation: two runs on
// the same 1000 items whose true errors are known from 2,000,000 items, 200 seeded trials per scenario.
import { compareRuns, ece, type Labelled, mce, topLabel } from "@decision-workbench/calibration";
import { describe, expect, it } from "vitest";
import { COMPARED_METRICS, comparedMetric } from "../../src/analysis/compare.js";

type Distort = (q: number) => number;

/** Binary items whose right answer has probability q ~ U(0.5, 1); each run reports distort(q) for it. */
function sample(n: number, seed: number, runs: Distort[]): Labelled[] {
  let s = seed >>> 0;
  const rnd = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 4294967296;
  };
  const probs = runs.map(() => new Float64Array(2 * n));
  const gold = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const q = 0.5 + 0.5 * rnd();
    runs.forEach((f, r) => {
      const p = f(q);
      probs[r][2 * i] = p;
      probs[r][2 * i + 1] = 1 - p;
    });
    gold[i] = rnd() < q ? 0 : 1;
  }
  return probs.map((p) => ({ probs: p, k: 2, gold }));
}

const overConfident: Distort = (q) => Math.min(0.999, 0.5 + 0.5 * ((q - 0.5) / 0.5) ** 0.6);
const calibrated: Distort = (q) => q;
const underConfident: Distort = (q) => 0.5 + 0.5 * ((q - 0.5) / 0.5) ** 1.6;

const ERRORS = ["ece", "eceMass", "mce", "mceMass"] as const;

function trueErrors(d: Labelled): Record<(typeof ERRORS)[number], number> {
  const t = topLabel(d);
  return {
    ece: ece(t),
    eceMass: ece(t, { binning: "mass" }),
    mce: mce(t),
    mceMass: mce(t, { binning: "mass" }),
  };
}

function coverage(a: Distort, b: Distort, seed: number): Record<string, number> {
  const [bigA, bigB] = sample(2_000_000, seed, [a, b]);
  const ta = trueErrors(bigA);
  const tb = trueErrors(bigB);
  const trials = 200;
  const hits: Record<string, number> = {};
  for (const m of ERRORS) hits[m] = 0;
  for (let t = 0; t < trials; t++) {
    const [ra, rb] = sample(1000, seed + 1 + t, [a, b]);
    const c = compareRuns(ra, rb, { resamples: 200, seed: t });
    for (const m of COMPARED_METRICS) {
      const { delta } = comparedMetric(c, m);
      expect(delta[1]).toBeLessThanOrEqual(delta[0]);
      expect(delta[2]).toBeGreaterThanOrEqual(delta[0]);
    }
    for (const m of ERRORS) {
      const truth = ta[m] - tb[m];
      const [, low, high] = comparedMetric(c, m).delta;
      if (low <= truth && truth <= high) hits[m]++;
    }
  }
  for (const m of ERRORS) hits[m] /= trials;
  return hits;
}

describe("changes in calibration error between two runs", () => {
  it("cover the true change in at least 93 % of 200 trials: over-confident against calibrated", () => {
    const c = coverage(overConfident, calibrated, 11);
    for (const m of ERRORS) expect(c[m], m).toBeGreaterThanOrEqual(0.93);
  }, 120_000);

  it("cover the true change in at least 93 % of 200 trials: under-confident against over-confident", () => {
    const c = coverage(underConfident, overConfident, 29);
    for (const m of ERRORS) expect(c[m], m).toBeGreaterThanOrEqual(0.93);
  }, 120_000);

  it("keep the paired percentile change of the means, the difference of the values shown for the errors", () => {
    const [a, b] = sample(1000, 5, [overConfident, calibrated]);
    const c = compareRuns(a, b, { resamples: 200, seed: 0 });
    expect(comparedMetric(c, "accuracy").delta).toEqual(c.delta.accuracy);
    for (const m of ERRORS) {
      const r = comparedMetric(c, m);
      const vb = Math.min(1, Math.max(0, c.b[m][0]));
      expect(r.delta[0]).toBeCloseTo(r.value[0] - vb, 12);
    }
  });
});
