import { percentileSorted } from "../bootstrap/percentile.js";
import { normalCdf } from "../normal-cdf.js";
import { normalQuantile } from "../special.js";
import type { Estimate } from "../types.js";

/** Mean of a - b, item by item (a loop of its own). */
function meanDiff(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] - b[i];
  return s / a.length;
}

/** Second and third central moment sums of a - b around its mean, into out[0], out[1]. */
function momentSums(a: Float64Array, b: Float64Array, mean: number, out: Float64Array): void {
  let s2 = 0;
  let s3 = 0;
  for (let i = 0; i < a.length; i++) {
    const u = a[i] - b[i] - mean;
    s2 += u * u;
    s3 += u * u * u;
    out[0] = s2;
    out[1] = s3;
  }
}

/**
 * The paired bootstrap BCa interval of the mean item-by-item difference a - b (a: the incumbent's per-item held-out
 * loss, b: the candidate's; positive = the candidate is better), from replicates of both means drawn on the same
 * resampled items. Bias correction z0 from the share of replicates below the point; acceleration from the jackknife,
 * which for a mean is the skewness sum(u^3) / (6 sum(u^2)^1.5) of the differences u around their mean
 * [Efron 1987; Efron & Tibshirani 1993, ch. 14]. The point is the mean difference. Internal (tested for coverage).
 */
export function pairedImprovement(
  a: Float64Array,
  b: Float64Array,
  repsA: Float64Array,
  repsB: Float64Array,
  level: number,
): Estimate {
  const point = meanDiff(a, b);
  const reps: number[] = [];
  for (let r = 0; r < repsA.length; r++) {
    const d = repsA[r] - repsB[r];
    if (Number.isFinite(d)) reps.push(d);
  }
  const sorted = Float64Array.from(reps).sort();
  const m = sorted.length;
  if (m === 0) return [point, point, point];
  let below = 0;
  let equal = 0;
  for (let r = 0; r < m; r++) {
    if (sorted[r] < point) below++;
    else if (sorted[r] === point) equal++;
  }
  const share = Math.min(1 - 0.5 / m, Math.max(0.5 / m, (below + equal / 2) / m));
  const z0 = normalQuantile(share);
  const mom = new Float64Array(2);
  momentSums(a, b, point, mom);
  const acc = mom[0] > 0 ? mom[1] / (6 * mom[0] ** 1.5) : 0;
  const alpha = 1 - level;
  const adjusted = (q: number) => {
    const z = normalQuantile(q);
    const w = z0 + z;
    return normalCdf(z0 + w / (1 - acc * w));
  };
  const lo = percentileSorted(sorted, adjusted(alpha / 2));
  const hi = percentileSorted(sorted, adjusted(1 - alpha / 2));
  return [point, Math.min(lo, point), Math.max(hi, point)];
}
