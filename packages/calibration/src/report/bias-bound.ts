import { binEdges } from "../binning/edges.js";
import type { Binning } from "../types.js";

// The bias bounds of the bias-bounded intervals (see bootstrap/basic.ts): per bin, the residual sum's variance, the
// larger of sum p (1 - p) (its variance were the bin calibrated, the case the bound describes; it stays sensible in a
// bin of few items whose outcomes happen to agree) and the residuals' sample variance times the count (which holds
// when the bin is not calibrated); 1/4, a Bernoulli outcome's largest variance, for a bin of one item. Internal.

const ROOT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/**
 * Per-bin variance of the residual sum: max(sum p (1 - p), count * sample variance of y - p); 1/4 for one item, 0 for
 * none. c, s, q: count, sum and sum of squares of the residuals; pq: sum of p (1 - p).
 */
function sumVariance(c: number, s: number, q: number, pq: number): number {
  if (c < 1) return 0;
  if (c < 2) return 0.25;
  return Math.max(pq, (c * Math.max(0, q - (s * s) / c)) / (c - 1));
}

/** First sorted position of each bin (starts[bins] = n): bins (e_b, e_b+1], as assignBins. */
export function binStarts(conf: Float64Array, edges: Float64Array): Int32Array {
  const bins = edges.length - 1;
  const n = conf.length;
  const starts = new Int32Array(bins + 1);
  for (let b = 1; b < bins; b++) {
    let lo = starts[b - 1];
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (conf[mid] <= edges[b]) lo = mid + 1;
      else hi = mid;
    }
    starts[b] = lo;
  }
  starts[bins] = n;
  return starts;
}

function residualMoments(
  conf: Float64Array,
  res: Float64Array,
  from: number,
  to: number,
  out: Float64Array,
): void {
  let s = 0;
  let q = 0;
  let pq = 0;
  for (let t = from; t < to; t++) {
    s += res[t];
    q += res[t] * res[t];
    pq += conf[t] * (1 - conf[t]);
  }
  out[0] = s;
  out[1] = q;
  out[2] = pq;
}

/**
 * Bias bounds of the top-label ECE (sum_b sd_b sqrt(2/pi) / N) and MCE (sqrt(sum_b var_b / n_b^2): E max_b |e_b| is at
 * most sqrt(E sum_b e_b^2)) for items in confidence order (conf) with residuals y - p (res); and l2Sd, the delta-method
 * standard deviation of the squared L2 error sum_b S_b^2 / (N n_b) from the same variances (sum_b (2 S_b / (N n_b))^2
 * var_b + 2 (var_b / (N n_b))^2), a floor for its bootstrap standard deviation, which is 0 when every bin's outcomes
 * agree.
 */
export function topBounds(
  conf: Float64Array,
  res: Float64Array,
  bins: number,
  binning: Binning,
): { ece: number; mce: number; l2Sd: number; starts: Int32Array } {
  const n = conf.length;
  const starts = binStarts(conf, binEdges(conf, bins, binning));
  const m = new Float64Array(3);
  let ece = 0;
  let mce = 0;
  let l2 = 0;
  for (let b = 0; b < bins; b++) {
    const c = starts[b + 1] - starts[b];
    if (c === 0) continue;
    residualMoments(conf, res, starts[b], starts[b + 1], m);
    const v = sumVariance(c, m[0], m[1], m[2]);
    ece += Math.sqrt(v);
    mce += v / (c * c);
    const slope = (2 * m[0]) / (n * c);
    const curve = v / (n * c);
    l2 += slope * slope * v + 2 * curve * curve;
  }
  return { ece: (ece * ROOT_2_OVER_PI) / n, mce: Math.sqrt(mce), l2Sd: Math.sqrt(l2), starts };
}

function pairMoments(
  bin: Uint16Array,
  res: Float32Array,
  k: number,
  bins: number,
  c: Float64Array,
  s: Float64Array,
  q: Float64Array,
  pq: Float64Array,
): void {
  for (let i = 0; i < bin.length; i++) {
    const at = (i % k) * bins + bin[i];
    const r = res[i];
    const p = r > 0 ? 1 - r : -r; // the residual is 1 - p for an outcome 1 (p < 1) and -p otherwise
    c[at]++;
    s[at] += r;
    q[at] += r * r;
    pq[at] += p * (1 - p);
  }
}

/** Bias bound of the classwise ECE: the mean over options of each option's ECE bound. */
export function classwiseBound(
  bin: Uint16Array,
  res: Float32Array,
  k: number,
  bins: number,
  n: number,
): number {
  const kb = k * bins;
  const c = new Float64Array(kb);
  const s = new Float64Array(kb);
  const q = new Float64Array(kb);
  const pq = new Float64Array(kb);
  pairMoments(bin, res, k, bins, c, s, q, pq);
  let total = 0;
  for (let at = 0; at < kb; at++) total += Math.sqrt(sumVariance(c[at], s[at], q[at], pq[at]));
  return (total * ROOT_2_OVER_PI) / n / k;
}
