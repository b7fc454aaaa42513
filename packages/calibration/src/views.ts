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
  topOfRows(probs, n, k, gold, p, y);
  return { p, y };
}

// The loops over all rows are functions of their own with nothing after the loop: V8 compiles a long loop while it
// runs, on the first call, and code after it that needs type feedback (the result's object literal, never run then)
// made every later call bail out of the compiled loop. They take the arrays, not the caller's data object, whose
// hidden class differs from caller to caller.

/** Each row's largest probability (p) and whether its first argmax is gold (y). */
function topOfRows(
  probs: Float64Array,
  n: number,
  k: number,
  gold: ArrayLike<number>,
  p: Float64Array,
  y: Uint8Array,
): void {
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
}

/**
 * Multi-label item view: confidence = the least sure label's max(p, 1 - p); outcome = every label decided right at
 * `threshold` (chosen when p >= threshold) [decision-service contract, multi-label rule; Zhang & Zhou 2014].
 */
export function multiLabelTop(d: MultiLabel, threshold = 0.5): TopLabel {
  const n = checkMultiLabel(d, "multiLabelTop");
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  leastSureOfRows(d.probs, n, d.k, d.labels, threshold, p, y);
  return { p, y };
}

/** Each row's least sure label's max(q, 1 - q) (p) and whether every label is decided right at the threshold (y). */
function leastSureOfRows(
  probs: Float64Array,
  n: number,
  k: number,
  labels: ArrayLike<number>,
  threshold: number,
  p: Float64Array,
  y: Uint8Array,
): void {
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

/**
 * One option's column of the probabilities (and of the labels, multi-label) or, multiclass, whether gold is that
 * option. Loops of their own with nothing after them: V8 compiles a long loop while it runs, on the
 * first call, and code after it (the result's object literal, never run then) made every later call bail out of the
 * compiled loop. They take the arrays, not the caller's data object, whose hidden class differs from caller to caller.
 */
function column(probs: Float64Array, n: number, k: number, option: number, out: Float64Array): void {
  for (let i = 0, at = option; i < n; i++, at += k) out[i] = probs[at];
}

function labelColumn(labels: ArrayLike<number>, n: number, k: number, option: number, out: Uint8Array): void {
  for (let i = 0, at = option; i < n; i++, at += k) out[i] = labels[at];
}

function isOption(gold: ArrayLike<number>, n: number, option: number, out: Uint8Array): void {
  for (let i = 0; i < n; i++) out[i] = gold[i] === option ? 1 : 0;
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
  column(d.probs, n, k, option, p);
  if (multi) labelColumn((d as MultiLabel).labels, n, k, option, y);
  else isOption((d as Labelled).gold, n, option, y);
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
