import { checkLabelled, checkMultiLabel, isMultiLabel, rowsOf } from "./input.js";
import type { Binary, Labelled, MultiLabel, ProbMatrix } from "./types.js";

/** The top-label view of a question: confidence, correctness and the predicted option of each item. */
export interface TopLabel extends Binary {
  readonly p: Float64Array;
  readonly y: Uint8Array;
}

/** Index of the most probable option of each row (the first one on ties, like numpy.argmax) [Guo et al. 2017]. */
export function argmax(m: ProbMatrix): Int32Array {
  const n = rowsOf(m, "argmax");
  return argmaxUnchecked(m.probs, n, m.k);
}

export function argmaxUnchecked(probs: Float64Array, n: number, k: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let best = 0;
    let bp = probs[base];
    for (let j = 1; j < k; j++) {
      if (probs[base + j] > bp) {
        bp = probs[base + j];
        best = j;
      }
    }
    out[i] = best;
  }
  return out;
}

/** Top-label view: confidence = max probability, outcome = argmax equals gold [Guo et al. 2017]. */
export function topLabel(d: Labelled): TopLabel {
  const n = checkLabelled(d, "topLabel");
  return topLabelUnchecked(d.probs, n, d.k, d.gold);
}

export function topLabelUnchecked(
  probs: Float64Array,
  n: number,
  k: number,
  gold: ArrayLike<number>,
): TopLabel {
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let best = 0;
    let bp = probs[base];
    for (let j = 1; j < k; j++) {
      if (probs[base + j] > bp) {
        bp = probs[base + j];
        best = j;
      }
    }
    p[i] = bp;
    y[i] = best === gold[i] ? 1 : 0;
  }
  return { p, y };
}

/**
 * Multi-label item view: confidence = the least sure label's max(p, 1 - p); outcome = every label decided right at
 * `threshold` (chosen when p >= threshold) [decision-service contract, multi-label rule; Zhang & Zhou 2014].
 */
export function multiLabelTop(d: MultiLabel, threshold = 0.5): TopLabel {
  const n = checkMultiLabel(d, "multiLabelTop");
  const { probs, k, labels } = d;
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let conf = 1;
    let right = 1;
    for (let j = 0; j < k; j++) {
      const q = probs[base + j];
      const c = q >= 0.5 ? q : 1 - q;
      if (c < conf) conf = c;
      if ((q >= threshold ? 1 : 0) !== labels[base + j]) right = 0;
    }
    p[i] = conf;
    y[i] = right;
  }
  return { p, y };
}

/** One option as a binary problem: its probability, and whether it is gold (or applies, for multi-label) [Kull et al. 2019]. */
export function classView(
  d: Labelled | MultiLabel,
  option: number,
): Binary & { p: Float64Array; y: Uint8Array } {
  const multi = isMultiLabel(d);
  const n = multi ? checkMultiLabel(d, "classView") : checkLabelled(d, "classView");
  if (!Number.isInteger(option) || option < 0 || option >= d.k) {
    throw new RangeError(`classView: option must be an index in 0..${d.k - 1}, got ${option}`);
  }
  return classViewUnchecked(d, n, option, multi);
}

export function classViewUnchecked(
  d: Labelled | MultiLabel,
  n: number,
  option: number,
  multi: boolean,
): { p: Float64Array; y: Uint8Array } {
  const k = d.k;
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    p[i] = d.probs[i * k + option];
    y[i] = multi ? (d as MultiLabel).labels[i * k + option] : (d as Labelled).gold[i] === option ? 1 : 0;
  }
  return { p, y };
}

/** Every option (or label) as its own binary problem: the classwise / per-label view [Kull et al. 2019]. */
export function classViews(d: Labelled | MultiLabel): { p: Float64Array; y: Uint8Array }[] {
  const multi = isMultiLabel(d);
  const n = multi ? checkMultiLabel(d, "classViews") : checkLabelled(d, "classViews");
  const out: { p: Float64Array; y: Uint8Array }[] = [];
  for (let j = 0; j < d.k; j++) out.push(classViewUnchecked(d, n, j, multi));
  return out;
}
