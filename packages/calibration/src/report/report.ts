import { binSums } from "../binning/accumulate.js";
import { type ReliabilityBin, reliabilityFromSums } from "../binning/reliability.js";
import { bootstrapOptions } from "../bootstrap/bootstrap.js";
import {
  bootstrapRuns,
  ENGINE_METRICS,
  type EngineMetric,
  type Replicates,
  type RunItems,
} from "../bootstrap/engine.js";
import { percentileInterval } from "../bootstrap/percentile.js";
import { checkBins, checkNonEmpty, isMultiLabel } from "../input.js";
import { debiasedFromSums } from "../metrics/debiased.js";
import { classwiseUnchecked, eceFromSums, mceFromSums } from "../metrics/ece.js";
import { smoothEceUnchecked } from "../metrics/smooth-ece.js";
import type { BootstrapOptions, Estimate, Labelled, MultiLabel } from "../types.js";
import { runItems } from "./items.js";
import { meanMetrics, pointMetrics } from "./points.js";

/** Options of a report: bootstrap (1000 resamples, seed 0, level 0.95), bins (15) and per-bin intervals. */
export interface ReportOptions extends BootstrapOptions {
  bins?: number;
  interval?: "wilson" | "jeffreys";
  minCount?: number;
}

/** The headline metrics with their bootstrap intervals. */
export type HeadlineMetrics = Record<EngineMetric, Estimate>;

/** A question's calibration report: headline metrics with CIs, further point metrics, and reliability bins. */
export interface CalibrationReport extends HeadlineMetrics {
  n: number;
  k: number;
  kind: "multiclass" | "multi-label";
  bins: number;
  resamples: number;
  seed: number;
  level: number;
  /** Mean one-vs-rest (or per-label) ECE, point estimate. */
  classwiseEce: number;
  /** Debiased L2 calibration error of the top label, point estimate. */
  debiasedCalibrationError: number;
  /** Smooth ECE of the top label and its bandwidth. */
  smoothEce: { ece: number; sigma: number };
  reliability: { width: ReliabilityBin[]; mass: ReliabilityBin[] };
}

function estimates(point: Record<EngineMetric, number>, rep: Replicates, level: number): HeadlineMetrics {
  const out = {} as HeadlineMetrics;
  for (const m of ENGINE_METRICS) out[m] = [point[m], ...percentileInterval(rep[m], level)];
  return out;
}

/**
 * A question's full report: accuracy, NLL, Brier, ECE (equal-width and equal-mass), MCE with seeded bootstrap
 * percentile intervals, plus classwise ECE, debiased L2 CE, smooth ECE and both reliability diagrams
 * [Guo et al. 2017; Nixon et al. 2019; Kull et al. 2019; Kumar et al. 2019; Blasiok & Nakkiran 2023; Efron 1979].
 */
export function calibrationReport(d: Labelled | MultiLabel, opts: ReportOptions = {}): CalibrationReport {
  const o = bootstrapOptions(opts, "calibrationReport");
  const bins = checkBins(opts.bins ?? 15, "calibrationReport");
  const items = runItems(d, "calibrationReport");
  const n = items.conf.length;
  checkNonEmpty(n, "calibrationReport");
  const [rep] = bootstrapRuns([items], bins, o.resamples, o.seed);
  const top = { p: items.conf, y: items.correct };
  const method = opts.interval ?? "wilson";
  if (method !== "wilson" && method !== "jeffreys") {
    throw new RangeError(
      `calibrationReport: interval must be "wilson" or "jeffreys", got ${JSON.stringify(method)}`,
    );
  }
  const minCount = opts.minCount ?? 10;
  const width = binSums(top, n, bins, "width");
  const mass = binSums(top, n, bins, "mass");
  const point: Record<EngineMetric, number> = {
    ...meanMetrics(items),
    ece: eceFromSums(width, n),
    eceMass: eceFromSums(mass, n),
    mce: mceFromSums(width),
  };
  return {
    n,
    k: d.k,
    kind: isMultiLabel(d) ? "multi-label" : "multiclass",
    bins,
    resamples: o.resamples,
    seed: o.seed,
    level: o.level,
    ...estimates(point, rep, o.level),
    classwiseEce: classwiseUnchecked(d, n, isMultiLabel(d), bins, "width"),
    debiasedCalibrationError: debiasedFromSums(mass, n),
    smoothEce: smoothEceUnchecked(top, n),
    reliability: {
      width: reliabilityFromSums(width, method, o.level, minCount),
      mass: reliabilityFromSums(mass, method, o.level, minCount),
    },
  };
}

/** Two runs on the same items: each run's headline metrics and the paired differences a - b. */
export interface RunComparison {
  n: number;
  a: HeadlineMetrics;
  b: HeadlineMetrics;
  delta: HeadlineMetrics;
}

/** Paired bootstrap comparison of two runs on the same items (same resamples for both) [Efron & Tibshirani 1993]. */
export function compareRuns(
  a: Labelled | MultiLabel,
  b: Labelled | MultiLabel,
  opts: BootstrapOptions & { bins?: number } = {},
): RunComparison {
  const o = bootstrapOptions(opts, "compareRuns");
  const bins = checkBins(opts.bins ?? 15, "compareRuns");
  const ia = runItems(a, "compareRuns");
  const ib = runItems(b, "compareRuns");
  const n = ia.conf.length;
  if (ib.conf.length !== n) {
    throw new RangeError(
      `compareRuns: run a has ${n} items and run b ${ib.conf.length}; pair them on the same items`,
    );
  }
  checkNonEmpty(n, "compareRuns");
  return compareItems(ia, ib, bins, o.resamples, o.seed, o.level);
}

/** Paired comparison of precomputed per-item quantities. Internal. */
export function compareItems(
  ia: RunItems,
  ib: RunItems,
  bins: number,
  resamples: number,
  seed: number,
  level: number,
): RunComparison {
  const [ra, rb] = bootstrapRuns([ia, ib], bins, resamples, seed);
  const pa = pointMetrics(ia, bins);
  const pb = pointMetrics(ib, bins);
  const diff = {} as Replicates;
  const pd = {} as Record<EngineMetric, number>;
  for (const m of ENGINE_METRICS) {
    diff[m] = ra[m].map((v, i) => v - rb[m][i]);
    pd[m] = pa[m] - pb[m];
  }
  return {
    n: ia.conf.length,
    a: estimates(pa, ra, level),
    b: estimates(pb, rb, level),
    delta: estimates(pd, diff, level),
  };
}
