import { binSums } from "../binning/accumulate.js";
import { widthEdges } from "../binning/edges.js";
import { type ReliabilityBin, reliabilityFromSums } from "../binning/reliability.js";
import { biasBounded, type IntervalMethod, normalSquared, percentileEstimate } from "../bootstrap/basic.js";
import { bootstrapOptions } from "../bootstrap/bootstrap.js";
import { classwiseItems, classwiseReplicates, classwiseScratch, MAX_BINS } from "../bootstrap/classwise.js";
import { type ConsistencyTest, consistencyTest } from "../bootstrap/consistency.js";
import {
  bootstrapRuns,
  ENGINE_METRICS,
  type EngineMetric,
  type Replicates,
  type RunItems,
} from "../bootstrap/engine.js";
import { checkBins, checkNonEmpty, isMultiLabel } from "../input.js";
import { debiasedFromSums, debiasedSquaredFromSums } from "../metrics/debiased.js";
import { classwiseUnchecked, eceFromSums, mceFromSums } from "../metrics/ece.js";
import { smoothEceUnchecked } from "../metrics/smooth-ece.js";
import { smoothEceEstimateUnchecked } from "../metrics/smooth-ece-bootstrap.js";
import { argsortUnit } from "../sort.js";
import { normalQuantile } from "../special.js";
import type { BootstrapOptions, Estimate, Labelled, MultiLabel } from "../types.js";
import { binStarts, classwiseBound, topBounds } from "./bias-bound.js";
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

/** The binned and smoothed calibration errors: biased upward, so their intervals are bias-aware. */
export const CALIBRATION_ERRORS = [
  "ece",
  "eceMass",
  "mce",
  "mceMass",
  "classwiseEce",
  "debiasedCalibrationError",
  "smoothEce",
] as const;
export type CalibrationError = (typeof CALIBRATION_ERRORS)[number];

/** Interval method of each metric (see IntervalMethod). */
export type IntervalMethods = Record<EngineMetric | CalibrationError, IntervalMethod>;
export type { ConsistencyTest, IntervalMethod };

/** A question's calibration report: headline metrics with CIs, further point metrics, and reliability bins. */
export interface CalibrationReport extends HeadlineMetrics {
  n: number;
  k: number;
  kind: "multiclass" | "multi-label";
  bins: number;
  resamples: number;
  /** Resamples of the classwise ECE's interval and of the consistency test: the first min(resamples, 200). */
  secondaryResamples: number;
  seed: number;
  level: number;
  /** Mean one-vs-rest (or per-label) ECE, equal-width bins, plug-in value (its interval: intervals.classwiseEce). */
  classwiseEce: number;
  /** Debiased L2 calibration error of the top label, equal-mass bins, plug-in (interval: intervals.debiasedCalibrationError). */
  debiasedCalibrationError: number;
  /** Smooth ECE of the top label and its bandwidth (plug-in). */
  smoothEce: { ece: number; sigma: number };
  /**
   * Every calibration error with its bias-aware interval, [bias-corrected point, low, high] (methods in
   * intervalMethod; ece, eceMass, mce, mceMass are the same Estimates as the top-level fields).
   */
  intervals: Record<CalibrationError, Estimate>;
  /** The plug-in values of the calibration errors (what scikit-learn's binning or the metric functions give). */
  plugin: Record<CalibrationError, number>;
  /** The interval method of each metric. */
  intervalMethod: IntervalMethods;
  /** Consistency resampling test of "perfectly calibrated" on the equal-width ECE [Broecker & Smith 2007]. */
  consistency: ConsistencyTest;
  reliability: { width: ReliabilityBin[]; mass: ReliabilityBin[] };
}

/**
 * The classwise ECE's interval and the consistency test use the first 200 of the report's resamples: each resample
 * costs K multiply-adds per item (classwise) or one random draw per item (consistency), against one per item for the
 * headline metrics; the classwise interval is bias-bounded, wider than its resampling noise.
 */
const SECONDARY_RESAMPLES = 200;

/** Interval method per metric: means percentile, binned errors bias-bounded, debiased L2 normal-squared. */
function intervalMethods(): IntervalMethods {
  return {
    accuracy: "percentile",
    nll: "percentile",
    brier: "percentile",
    ece: "bias-bounded",
    eceMass: "bias-bounded",
    mce: "bias-bounded",
    mceMass: "bias-bounded",
    classwiseEce: "bias-bounded",
    debiasedCalibrationError: "normal-squared",
    smoothEce: "basic-debiased",
  };
}

/** The bias bounds of the binned errors (see bootstrap/basic.ts); 0 for the means. */
type Bounds = Record<"ece" | "eceMass" | "mce" | "mceMass" | "l2Sd", number>;

/** Headline estimates: bias-bounded for the binned errors, percentile for the means. */
function estimates(
  point: Record<EngineMetric, number>,
  rep: Replicates,
  level: number,
  bounds: Bounds,
): HeadlineMetrics {
  const out = {} as HeadlineMetrics;
  for (const m of ENGINE_METRICS) {
    out[m] =
      m === "accuracy" || m === "nll" || m === "brier"
        ? percentileEstimate(point[m], rep[m], level)
        : biasBounded(point[m], rep[m], level, bounds[m]);
  }
  return out;
}

/** The bias bounds of a run's binned errors: items sorted by confidence, residuals y - p. */
function boundsOf(items: RunItems, bins: number): Bounds {
  const order = argsortUnit(items.conf);
  const n = order.length;
  const conf = new Float64Array(n);
  const cor = new Uint8Array(n);
  sortedBy(order, items.conf, items.correct, conf, cor);
  return sortedBounds(conf, residuals(conf, cor), bins);
}

function sortedBounds(conf: Float64Array, res: Float64Array, bins: number): Bounds {
  const width = topBounds(conf, res, bins, "width");
  const mass = topBounds(conf, res, bins, "mass");
  return { ece: width.ece, eceMass: mass.ece, mce: width.mce, mceMass: mass.mce, l2Sd: mass.l2Sd };
}

function residuals(conf: Float64Array, cor: Uint8Array): Float64Array {
  const res = new Float64Array(conf.length);
  for (let t = 0; t < conf.length; t++) res[t] = cor[t] - conf[t];
  return res;
}

/** Percentile estimates of every headline metric (paired differences, whose plug-in bias cancels in part). */
function percentileEstimates(
  point: Record<EngineMetric, number>,
  rep: Replicates,
  level: number,
): HeadlineMetrics {
  const out = {} as HeadlineMetrics;
  for (const m of ENGINE_METRICS) out[m] = percentileEstimate(point[m], rep[m], level);
  return out;
}

/**
 * A question's full report: accuracy, NLL, Brier (percentile bootstrap intervals); ECE and MCE (equal-width and
 * equal-mass), classwise ECE and debiased L2 CE with the bias-corrected point and the basic bootstrap interval; smooth
 * ECE; the consistency resampling p-value; both reliability diagrams [Guo et al. 2017; Nixon et al. 2019; Kull et al.
 * 2019; Kumar et al. 2019; Blasiok & Nakkiran 2023; Broecker & Smith 2007; Efron & Tibshirani 1993].
 */
export function calibrationReport(d: Labelled | MultiLabel, opts: ReportOptions = {}): CalibrationReport {
  const o = bootstrapOptions(opts, "calibrationReport");
  const bins = checkBins(opts.bins ?? 15, "calibrationReport");
  const items = runItems(d, "calibrationReport");
  const n = items.conf.length;
  checkNonEmpty(n, "calibrationReport");
  if (bins > MAX_BINS) {
    throw new RangeError(`calibrationReport: bins must be at most ${MAX_BINS}, got ${bins}`);
  }
  const multi = isMultiLabel(d);
  const order = argsortUnit(items.conf);
  const cw = classwiseItems(
    d.probs,
    d.k,
    multi ? null : (d as Labelled).gold,
    multi ? (d as MultiLabel).labels : null,
    order,
    bins,
  );
  const secondary = Math.min(o.resamples, SECONDARY_RESAMPLES);
  const cwRep = new Float64Array(secondary);
  const cwScratch = classwiseScratch(cw, n);
  const [rep] = bootstrapRuns(
    [items],
    bins,
    o.resamples,
    o.seed,
    (counts, first) => classwiseReplicates(cw, counts, first, cwRep, cwScratch),
    order,
  );
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
    mceMass: mceFromSums(mass),
  };
  const conf = new Float64Array(n);
  const cor = new Uint8Array(n);
  sortedBy(order, items.conf, items.correct, conf, cor);
  const res = residuals(conf, cor);
  const bounds = sortedBounds(conf, res, bins);
  const headline = estimates(point, rep, o.level, bounds);
  const classwise = classwiseUnchecked(d, n, multi, bins, "width");
  const debiased = debiasedFromSums(mass, n);
  const z = normalQuantile(0.5 + o.level / 2);
  const smooth = smoothEceUnchecked(top, n);
  return {
    n,
    k: d.k,
    kind: multi ? "multi-label" : "multiclass",
    bins,
    resamples: o.resamples,
    secondaryResamples: secondary,
    seed: o.seed,
    level: o.level,
    ...headline,
    classwiseEce: classwise,
    debiasedCalibrationError: debiased,
    smoothEce: smooth,
    intervals: {
      ece: headline.ece,
      eceMass: headline.eceMass,
      mce: headline.mce,
      mceMass: headline.mceMass,
      classwiseEce: biasBounded(classwise, cwRep, o.level, classwiseBound(cw.bin, cw.res, d.k, bins, n)),
      debiasedCalibrationError: normalSquared(debiasedSquaredFromSums(mass, n), rep.debiased, z, bounds.l2Sd),
      smoothEce: smoothEceEstimateUnchecked(top, smooth.ece, smooth.sigma, o.resamples, o.seed, o.level),
    },
    plugin: {
      ece: point.ece,
      eceMass: point.eceMass,
      mce: point.mce,
      mceMass: point.mceMass,
      classwiseEce: classwise,
      debiasedCalibrationError: debiased,
      smoothEce: smooth.ece,
    },
    intervalMethod: intervalMethods(),
    consistency: consistencyOf(conf, cor, bins, secondary, o.seed),
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
function compareItems(
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
  const ba = boundsOf(ia, bins);
  const bb = boundsOf(ib, bins);
  const diff = {} as Replicates;
  const pd = {} as Record<EngineMetric, number>;
  for (const m of ENGINE_METRICS) {
    diff[m] = ra[m].map((v, i) => v - rb[m][i]);
    pd[m] = pa[m] - pb[m];
  }
  return {
    n: ia.conf.length,
    a: estimates(pa, ra, level, ba),
    b: estimates(pb, rb, level, bb),
    delta: percentileEstimates(pd, diff, level),
  };
}

/** The items' confidences and outcomes in the given order. */
function sortedBy(
  order: Uint32Array,
  c: Float64Array,
  y: Uint8Array,
  conf: Float64Array,
  cor: Uint8Array,
): void {
  for (let t = 0; t < order.length; t++) {
    conf[t] = c[order[t]];
    cor[t] = y[order[t]];
  }
}

function consistencyOf(
  conf: Float64Array,
  cor: Uint8Array,
  bins: number,
  resamples: number,
  seed: number,
): ConsistencyTest {
  return consistencyTest(conf, cor, binStarts(conf, widthEdges(bins)), bins, resamples, seed);
}
