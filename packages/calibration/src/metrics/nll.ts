import { checkBinary, checkLabelled, checkNonEmpty } from "../input.js";
import type { Binary, Labelled } from "../types.js";

const EPS = 2.220446049250313e-16;

function checkEps(eps: number, fn: string): number {
  if (!(eps > 0 && eps < 0.5)) throw new RangeError(`${fn}: eps must be in (0, 0.5), got ${eps}`);
  return eps;
}

/**
 * Negative log-likelihood of the gold option, averaged over items; probabilities are clipped to [eps, 1 - eps] and
 * each row renormalised, as scikit-learn's log_loss does (eps = machine epsilon) [Good 1952].
 */
export function nll(d: Labelled, opts: { eps?: number } = {}): number {
  const n = checkLabelled(d, "nll");
  checkNonEmpty(n, "nll");
  const eps = checkEps(opts.eps ?? EPS, "nll");
  return nllUnchecked(d.probs, n, d.k, d.gold, eps, null) / n;
}

/** Sum over items of the clipped, renormalised NLL; fills `perItem` when given. Internal. */
export function nllUnchecked(
  probs: Float64Array,
  n: number,
  k: number,
  gold: ArrayLike<number>,
  eps: number,
  perItem: Float64Array | null,
): number {
  const hi = 1 - eps;
  let total = 0;
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let sum = 0;
    for (let j = 0; j < k; j++) {
      const p = probs[base + j];
      sum += Math.min(hi, Math.max(eps, p));
    }
    const g = probs[base + gold[i]];
    const pg = Math.min(hi, Math.max(eps, g));
    const loss = -Math.log(pg / sum);
    if (perItem) perItem[i] = loss;
    total += loss;
  }
  return total;
}

/** Binary log loss of P(y = 1), scikit-learn's log_loss on a binary problem [Good 1952]. */
export function binaryNll(b: Binary, opts: { eps?: number } = {}): number {
  const n = checkBinary(b, "binaryNll");
  checkNonEmpty(n, "binaryNll");
  const eps = checkEps(opts.eps ?? EPS, "binaryNll");
  return binaryNllTotal(b.p, b.y, n, eps) / n;
}

/**
 * Summed binary log loss. A loop of its own with nothing after it but its result: V8 compiles a long loop while it
 * runs, on the first call, and code after it that needs type feedback (never run then) made every later call bail out
 * of the compiled loop.
 */
function binaryNllTotal(p: ArrayLike<number>, y: ArrayLike<number>, n: number, eps: number): number {
  const hi = 1 - eps;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const raw = p[i];
    const p1 = Math.min(hi, Math.max(eps, raw));
    const p0 = 1 - p1;
    const sum = p0 + p1;
    total += -Math.log((y[i] === 1 ? p1 : p0) / sum);
  }
  return total;
}
