import { percentileInterval } from "../bootstrap/percentile.js";
import { mulberry32, type Random } from "../bootstrap/random.js";
import { lnGamma } from "../special.js";
import type { Estimate } from "../types.js";

/**
 * One Binomial(n, p) draw by inversion from the mode outwards: the pmf at the mode from log-Gamma, then the ratio
 * recurrences on both sides, so a draw costs O(sqrt(n p (1 - p))) steps. Internal.
 */
export function binomialDraw(n: number, p: number, rng: Random): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const logPmf =
    lnGamma(n + 1) -
    lnGamma(mode + 1) -
    lnGamma(n - mode + 1) +
    mode * Math.log(p) +
    (n - mode) * Math.log1p(-p);
  const pm = Math.exp(logPmf);
  const r = p / (1 - p);
  let u = rng.float();
  u -= pm;
  if (u < 0) return mode;
  // alternate up and down from the mode, subtracting probabilities until u is used up
  let up = mode;
  let down = mode;
  let pu = pm;
  let pd = pm;
  for (;;) {
    let moved = false;
    if (up < n) {
      pu *= ((n - up) / (up + 1)) * r;
      up++;
      u -= pu;
      if (u < 0) return up;
      moved = true;
    }
    if (down > 0) {
      pd *= down / ((n - down + 1) * r);
      down--;
      u -= pd;
      if (u < 0) return down;
      moved = true;
    }
    if (!moved || (pu < 1e-300 && pd < 1e-300)) return mode; // rounding left a sliver of u: the mode
  }
}

/** F1 of counts: 2 TP / (2 TP + FP + FN); 0 when there is nothing to score. */
function f1Of(tp: number, fp: number, fn: number): number {
  const den = 2 * tp + fp + fn;
  return den > 0 ? (2 * tp) / den : 0;
}

/**
 * F1 with its nonparametric bootstrap percentile interval over items. F1 depends on the items only through the
 * counts (TP, FP, FN, TN), so every resample of n items is drawn exactly as Multinomial(n; observed shares) by
 * conditional binomials: the same distribution as resampling items, at a cost independent of n [Efron 1979;
 * Efron & Tibshirani 1993].
 */
export function f1Estimate(
  tp: number,
  fp: number,
  fn: number,
  tn: number,
  opts: { resamples: number; seed: number; level: number },
): Estimate {
  const n = tp + fp + fn + tn;
  const point = f1Of(tp, fp, fn);
  if (n === 0) return [0, 0, 0];
  const rng = mulberry32(opts.seed);
  const values = new Float64Array(opts.resamples);
  for (let r = 0; r < opts.resamples; r++) {
    const a = binomialDraw(n, tp / n, rng);
    const rest = n - a;
    const restShare = n - tp;
    const b = restShare > 0 ? binomialDraw(rest, fp / restShare, rng) : 0;
    const rest2 = rest - b;
    const rest2Share = n - tp - fp;
    const c = rest2Share > 0 ? binomialDraw(rest2, fn / rest2Share, rng) : 0;
    values[r] = f1Of(a, b, c);
  }
  const [lo, hi] = percentileInterval(values, opts.level);
  return [point, Math.min(lo, point), Math.max(hi, point)];
}
