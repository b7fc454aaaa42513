import type { RunItems } from "../bootstrap/engine.js";
import { checkLabelled, checkMultiLabel, isMultiLabel } from "../input.js";
import { nllUnchecked } from "../metrics/nll.js";
import type { Labelled, MultiLabel } from "../types.js";
import { multiLabelTop, topLabelUnchecked } from "../views.js";

const EPS = 2.220446049250313e-16;

/**
 * Per-item quantities of a question for the bootstrap: top-label confidence and correctness, NLL (scikit-learn's
 * clipping) and Brier; for multi-label, the least-sure-label confidence, all-labels-right, and the per-label means
 * of binary NLL and Brier. Internal.
 */
export function runItems(d: Labelled | MultiLabel, fn: string): RunItems {
  if (isMultiLabel(d)) {
    const n = checkMultiLabel(d, fn);
    const top = multiLabelTop(d);
    const nll = new Float64Array(n);
    const brier = new Float64Array(n);
    labelScores(d.probs, n, d.k, d.labels, nll, brier);
    return { conf: top.p, correct: top.y, nll, brier };
  }
  const x = d as Labelled;
  const n = checkLabelled(x, fn);
  const top = topLabelUnchecked(x.probs, n, x.k, x.gold);
  const nll = new Float64Array(n);
  nllUnchecked(x.probs, n, x.k, x.gold, EPS, nll);
  const brier = new Float64Array(n);
  brierOfRows(x.probs, n, x.k, x.gold, brier);
  return { conf: top.p, correct: top.y, nll, brier };
}

// The loops over all rows are functions of their own with nothing after the loop: V8 compiles a long loop while it
// runs, on the first call, and code after it that needs type feedback (never run then) made every later call bail
// out of the compiled loop. They take the arrays, not the caller's data object.

/** Each row's Brier score: sum_j (p_ij - [gold_i = j])^2. */
function brierOfRows(
  probs: Float64Array,
  n: number,
  k: number,
  gold: ArrayLike<number>,
  out: Float64Array,
): void {
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let s = 0;
    for (let j = 0; j < k; j++) {
      const e = probs[base + j] - (gold[i] === j ? 1 : 0);
      s += e * e;
    }
    out[i] = s;
  }
}

/** Each row's mean binary NLL (clipped at machine epsilon) and mean Brier over its labels. */
function labelScores(
  probs: Float64Array,
  n: number,
  k: number,
  labels: ArrayLike<number>,
  nll: Float64Array,
  brier: Float64Array,
): void {
  const eps = EPS;
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let l = 0;
    let b = 0;
    for (let j = 0; j < k; j++) {
      const p = Math.min(1 - eps, Math.max(eps, probs[base + j]));
      const y = labels[base + j];
      l -= Math.log(y === 1 ? p : 1 - p);
      b += (probs[base + j] - y) ** 2;
    }
    nll[i] = l / k;
    brier[i] = b / k;
  }
}
