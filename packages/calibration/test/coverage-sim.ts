// Shared by test/coverage.test.ts and bench/coverage.ts: coverage of the report's calibration-error intervals by
// simulation. Synthetic multiclass predictions (K = 4, logits N(0, 1.5^2), reported probabilities softmax(logits / T));
// the true calibration errors are the population's binned errors, computed on 400,000 items with each outcome replaced
// by its true probability (no outcome noise; equal-mass edges are the population's quantiles).
import { binSums } from "../src/binning/accumulate.js";
import { eceFromSums, mceFromSums } from "../src/metrics/ece.js";
import {
  CALIBRATION_ERRORS,
  type CalibrationError,
  type CalibrationReport,
  calibrationReport,
} from "../src/report/report.js";
import type { Estimate } from "../src/types.js";
import { syntheticWithTruth } from "./synthetic.js";

const K = 4;
const BINS = 15;

/** The calibration errors whose coverage is simulated: all but smooth ECE, whose population value is not binned. */
export type Simulated = Exclude<CalibrationError, "smoothEce">;
export const SIMULATED = CALIBRATION_ERRORS.filter((m): m is Simulated => m !== "smoothEce");

function column(d: { probs: Float64Array; truth: Float64Array }, n: number, j: number | "top") {
  const p = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let c = 0;
    if (j === "top") {
      for (let m = 1; m < K; m++) if (d.probs[i * K + m] > d.probs[i * K + c]) c = m;
    } else c = j;
    p[i] = d.probs[i * K + c];
    y[i] = d.truth[i * K + c];
  }
  return { p, y };
}

/** The population's binned calibration errors at temperature T. */
function truthOf(temperature: number): Record<Simulated, number> {
  const n = 400_000;
  const d = syntheticWithTruth({ n, k: K, temperature, seed: 987654, scale: 1.5 });
  const top = column(d, n, "top");
  const width = binSums(top, n, BINS, "width");
  const mass = binSums(top, n, BINS, "mass");
  let l2 = 0;
  for (let b = 0; b < BINS; b++) {
    if (mass.count[b] > 0) l2 += (mass.sumY[b] - mass.sumP[b]) ** 2 / mass.count[b] / n;
  }
  let classwise = 0;
  for (let j = 0; j < K; j++) classwise += eceFromSums(binSums(column(d, n, j), n, BINS, "width"), n) / K;
  return {
    ece: eceFromSums(width, n),
    eceMass: eceFromSums(mass, n),
    mce: mceFromSums(width),
    mceMass: mceFromSums(mass),
    classwiseEce: classwise,
    debiasedCalibrationError: Math.sqrt(l2),
  };
}

export interface Simulation {
  truth: Record<Simulated, number>;
  coverage: Record<Simulated, number>;
  /** Mean interval width per metric. */
  width: Record<Simulated, number>;
  /** Intervals (any metric, any trial) whose point lies outside. */
  pointOutside: number;
  /** Share of trials whose consistency p-value is at most 0.05. */
  rejections: number;
}

/** `trials` seeded reports of n items each (1000 resamples), and how often each interval covers the truth. */
export function simulate(temperature: number, trials = 200, n = 1000): Simulation {
  const truth = truthOf(temperature);
  const hits = {} as Record<Simulated, number>;
  const width = {} as Record<Simulated, number>;
  for (const m of SIMULATED) {
    hits[m] = 0;
    width[m] = 0;
  }
  let pointOutside = 0;
  let rejections = 0;
  for (let t = 0; t < trials; t++) {
    const d = syntheticWithTruth({ n, k: K, temperature, seed: 1000 + t, scale: 1.5 });
    const r: CalibrationReport = calibrationReport(d, { seed: t });
    for (const m of SIMULATED) {
      const e: Estimate = r.intervals[m];
      if (e[1] <= truth[m] && truth[m] <= e[2]) hits[m]++;
      width[m] += (e[2] - e[1]) / trials;
    }
    for (const e of Object.values(r.intervals)) if (!(e[1] <= e[0] && e[0] <= e[2])) pointOutside++;
    if (r.consistency.pValue <= 0.05) rejections++;
  }
  const coverage = {} as Record<Simulated, number>;
  for (const m of SIMULATED) coverage[m] = hits[m] / trials;
  return { truth, coverage, width, pointOutside, rejections: rejections / trials };
}
