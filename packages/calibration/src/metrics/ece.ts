import { type BinSums, binSums } from "../binning/accumulate.js";
import {
  checkBinary,
  checkBins,
  checkLabelled,
  checkMultiLabel,
  checkNonEmpty,
  isMultiLabel,
} from "../input.js";
import type { Binary, Binning, Labelled, MultiLabel } from "../types.js";
import { classViewUnchecked } from "../views.js";

/** Options of the binned calibration errors: bin count (15) and binning ("width"). */
export interface EceOptions {
  bins?: number;
  binning?: Binning;
}

function sums(b: Binary, opts: EceOptions, fn: string) {
  const n = checkBinary(b, fn);
  checkNonEmpty(n, fn);
  const bins = checkBins(opts.bins ?? 15, fn);
  return { n, s: binSums(b, n, bins, opts.binning ?? "width") };
}

/** ECE from per-bin sums. Internal. */
export function eceFromSums(s: BinSums, n: number): number {
  let total = 0;
  for (let i = 0; i < s.count.length; i++) total += Math.abs(s.sumY[i] - s.sumP[i]);
  return total / n;
}

/** MCE from per-bin sums. Internal. */
export function mceFromSums(s: BinSums): number {
  let worst = 0;
  for (let i = 0; i < s.count.length; i++) {
    if (s.count[i] > 0) worst = Math.max(worst, Math.abs(s.sumY[i] - s.sumP[i]) / s.count[i]);
  }
  return worst;
}

/**
 * Expected calibration error: sum over bins of (n_b / N) * |acc_b - conf_b| [Guo et al. 2017]; with
 * binning "mass" the bins hold equal counts [Nixon et al. 2019, "adaptive calibration error"].
 */
export function ece(b: Binary, opts: EceOptions = {}): number {
  const { n, s } = sums(b, opts, "ece");
  return eceFromSums(s, n);
}

/** Maximum calibration error: the largest |acc_b - conf_b| over non-empty bins [Naeini et al. 2015]. */
export function mce(b: Binary, opts: EceOptions = {}): number {
  const { s } = sums(b, opts, "mce");
  return mceFromSums(s);
}

/** Classwise ECE: the mean over options (or labels) of the one-vs-rest ECE [Kull et al. 2019]. */
export function classwiseEce(d: Labelled | MultiLabel, opts: EceOptions = {}): number {
  if (!isMultiLabel(d) && (d as Labelled).gold === undefined) {
    throw new TypeError("classwiseEce: expected { probs, k, gold } or { probs, k, labels }");
  }
  const multi = isMultiLabel(d);
  const n = multi ? checkMultiLabel(d, "classwiseEce") : checkLabelled(d as Labelled, "classwiseEce");
  checkNonEmpty(n, "classwiseEce");
  return classwiseUnchecked(d, n, multi, checkBins(opts.bins ?? 15, "classwiseEce"), opts.binning ?? "width");
}

/** Classwise ECE of validated data, one view at a time. Internal. */
export function classwiseUnchecked(
  d: Labelled | MultiLabel,
  n: number,
  multi: boolean,
  bins: number,
  binning: Binning,
): number {
  let total = 0;
  for (let j = 0; j < d.k; j++)
    total += eceFromSums(binSums(classViewUnchecked(d, n, j, multi), n, bins, binning), n);
  return total / d.k;
}
