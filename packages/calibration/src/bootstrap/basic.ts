import type { Estimate } from "../types.js";
import { percentileInterval } from "./percentile.js";

/**
 * The interval methods a report names: "percentile" (means: accuracy, NLL, Brier), "bias-bounded" (binned
 * calibration errors), "normal-squared" (the debiased L2 calibration error) and "basic-debiased" (smooth ECE: basic
 * bootstrap of the folded-normal bias-corrected estimator, smoothEceEstimate).
 */
export type IntervalMethod = "percentile" | "bias-bounded" | "normal-squared" | "basic-debiased";

/** Mean of the finite values; NaN when none is finite. */
export function meanOfFinite(values: ArrayLike<number>): number {
  let total = 0;
  let count = 0;
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i])) {
      total += values[i];
      count++;
    }
  }
  return count > 0 ? total / count : Number.NaN;
}

function sdOfFinite(values: ArrayLike<number>, mean: number): number {
  let total = 0;
  let count = 0;
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i])) {
      total += (values[i] - mean) ** 2;
      count++;
    }
  }
  return count > 1 ? Math.sqrt(total / (count - 1)) : 0;
}

/** [point, low, high] with the point inside (the interval widened to hold it if rounding ever left it out). */
function holding(point: number, low: number, high: number): Estimate {
  return [point, Math.min(low, point), Math.max(high, point)];
}

/** A calibration error's estimate cut to [0, 1], where every calibration error lies (a stretched bound can leave it). */
function withinUnit(e: Estimate): Estimate {
  return [Math.min(1, e[0]), Math.min(1, e[1]), Math.min(1, e[2])];
}

/**
 * Bias-bounded basic bootstrap estimate of a binned calibration error theta. Its plug-in overestimates: by Jensen's
 * inequality E|S_b| >= |E S_b| for every bin's residual sum, so the bias is at least 0, and for a normal S_b the
 * excess E|S_b| - |E S_b| is largest when E S_b = 0, so the bias is at most `bound` (sum over bins of
 * sd(S_b) sqrt(2 / pi) / N for ECE). The interval is the union of the basic bootstrap intervals over every bias in
 * [0, bound]: [theta - bound - (q_hi - m), theta + (m - q_lo)], m the replicates' mean, q their percentiles; the point
 * is the bootstrap bias-corrected 2 theta - m; all floored at 0 [Efron & Tibshirani 1993, sections 10.6 and 13.4].
 */
export function biasBounded(
  plugin: number,
  replicates: ArrayLike<number>,
  level: number,
  bound: number,
): Estimate {
  const [qLo, qHi] = percentileInterval(replicates, level);
  const mean = meanOfFinite(replicates);
  const point = Math.max(0, 2 * plugin - mean);
  const low = Math.max(0, plugin - bound - (qHi - mean));
  const high = Math.max(0, plugin + (mean - qLo));
  return withinUnit(holding(point, low, high));
}

/**
 * Normal interval on the squared scale, for an estimator that is unbiased there (the debiased squared L2 error):
 * D +- z sd, D the plug-in before clipping, sd the larger of the bootstrap replicates' and `sdFloor` (a delta-method
 * value that stays positive when every bin's outcomes agree and the replicates do not vary); point and ends are
 * sqrt(max(0, .)) [Efron & Tibshirani 1993, section 13.2; Kumar, Liang & Ma 2019].
 */
export function normalSquared(
  squared: number,
  replicates: ArrayLike<number>,
  z: number,
  sdFloor = 0,
): Estimate {
  const sd = Math.max(sdFloor, sdOfFinite(replicates, meanOfFinite(replicates)));
  const root = (v: number) => Math.sqrt(Math.max(0, v));
  return withinUnit(holding(root(squared), root(squared - z * sd), root(squared + z * sd)));
}

/** Percentile interval with the plug-in point, widened to hold the point if it ever did not [Efron 1979]. */
export function percentileEstimate(plugin: number, replicates: ArrayLike<number>, level: number): Estimate {
  const [low, high] = percentileInterval(replicates, level);
  return holding(plugin, low, high);
}
