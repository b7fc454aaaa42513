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
    const k = d.k;
    for (let i = 0, base = 0; i < n; i++, base += k) {
      let l = 0;
      let b = 0;
      for (let j = 0; j < k; j++) {
        const p = Math.min(1 - EPS, Math.max(EPS, d.probs[base + j]));
        const y = d.labels[base + j];
        l -= Math.log(y === 1 ? p : 1 - p);
        b += (d.probs[base + j] - y) ** 2;
      }
      nll[i] = l / k;
      brier[i] = b / k;
    }
    return { conf: top.p, correct: top.y, nll, brier };
  }
  const x = d as Labelled;
  const n = checkLabelled(x, fn);
  const top = topLabelUnchecked(x.probs, n, x.k, x.gold);
  const nll = new Float64Array(n);
  nllUnchecked(x.probs, n, x.k, x.gold, EPS, nll);
  const brier = new Float64Array(n);
  for (let i = 0, base = 0; i < n; i++, base += x.k) {
    let s = 0;
    for (let j = 0; j < x.k; j++) {
      const e = x.probs[base + j] - (x.gold[i] === j ? 1 : 0);
      s += e * e;
    }
    brier[i] = s;
  }
  return { conf: top.p, correct: top.y, nll, brier };
}
