import { type BinSums, binSums } from "../binning/accumulate.js";
import { checkBinary, checkBins, checkNonEmpty } from "../input.js";
import type { Binary, Binning } from "../types.js";

/**
 * Debiased L2 calibration error: sqrt(max(0, sum_b (n_b/N) [(acc_b - conf_b)^2 - acc_b (1 - acc_b) / (n_b - 1)])),
 * equal-mass bins (15) by default; bins with fewer than 2 items add nothing [Kumar, Liang & Ma 2019].
 */
export function debiasedCalibrationError(b: Binary, opts: { bins?: number; binning?: Binning } = {}): number {
  const n = checkBinary(b, "debiasedCalibrationError");
  checkNonEmpty(n, "debiasedCalibrationError");
  const bins = checkBins(opts.bins ?? 15, "debiasedCalibrationError");
  return debiasedFromSums(binSums(b, n, bins, opts.binning ?? "mass"), n);
}

/** Debiased L2 calibration error from per-bin sums. Internal. */
export function debiasedFromSums(s: BinSums, n: number): number {
  return Math.sqrt(Math.max(0, debiasedSquaredFromSums(s, n)));
}

/** The debiased squared L2 calibration error before clipping at 0 (unbiased for the squared error). Internal. */
export function debiasedSquaredFromSums(s: BinSums, n: number): number {
  const bins = s.count.length;
  let total = 0;
  for (let i = 0; i < bins; i++) {
    const c = s.count[i];
    if (c < 2) continue;
    const acc = s.sumY[i] / c;
    const conf = s.sumP[i] / c;
    total += (c / n) * ((acc - conf) ** 2 - (acc * (1 - acc)) / (c - 1));
  }
  return total;
}
