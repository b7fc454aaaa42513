import { checkLabelled, checkMultiLabel, checkNonEmpty } from "../input.js";
import { type RateCount, rateCount } from "../intervals/rate.js";
import type { Labelled, MultiLabel } from "../types.js";
import { argmaxUnchecked } from "../views.js";

/**
 * Precision, recall and F1 of one option or label; 0 where undefined (scikit-learn's zero_division = 0); precision and
 * recall also as x of n with a Wilson interval.
 */
export interface OptionScore {
  precision: number;
  recall: number;
  f1: number;
  /** Items whose gold is this option (or where this label applies). */
  support: number;
  /** Items predicted as this option (or where this label is chosen). */
  predicted: number;
  /**
   * precision as true positives of `predicted`, recall as true positives of `support`, each with its 95 % Wilson
   * interval (a precision of 1 from one prediction reads 1 of 1, [0.21, 1]).
   */
  counts: { precision: RateCount; recall: RateCount };
}

/** Per-option scores with macro and micro F1. */
export interface ClassificationScores {
  options: OptionScore[];
  macroF1: number;
  microF1: number;
  accuracy: number;
}

function f1Of(tp: number, fp: number, fn: number): number {
  return 2 * tp + fp + fn > 0 ? (2 * tp) / (2 * tp + fp + fn) : 0;
}

function score(tp: number, fp: number, fn: number): OptionScore {
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  const f1 = f1Of(tp, fp, fn);
  return {
    precision,
    recall,
    f1,
    support: tp + fn,
    predicted: tp + fp,
    counts: { precision: rateCount(tp, tp + fp), recall: rateCount(tp, tp + fn) },
  };
}

/** Share of items whose most probable option is the gold one (top-1 accuracy) [Guo et al. 2017]. */
export function accuracy(d: Labelled): number {
  const n = checkLabelled(d, "accuracy");
  checkNonEmpty(n, "accuracy");
  return hitsOf(argmaxUnchecked(d.probs, n, d.k), d.gold, n) / n;
}

// The loops over all items are functions of their own with nothing after the loop but its result: V8 compiles a long
// loop while it runs, on the first call, and code after it that needs type feedback (never run then) made every later
// call bail out of the compiled loop.
// They take the arrays, not the caller's data object.

/** Items whose prediction is gold. */
function hitsOf(pred: Int32Array, gold: ArrayLike<number>, n: number): number {
  let hits = 0;
  for (let i = 0; i < n; i++) if (pred[i] === gold[i]) hits++;
  return hits;
}

/** Per-option true positives, false positives and false negatives of the predictions; returns the hits. */
function tally(
  pred: Int32Array,
  gold: ArrayLike<number>,
  n: number,
  tp: Float64Array,
  fp: Float64Array,
  fn: Float64Array,
): number {
  let hits = 0;
  for (let i = 0; i < n; i++) {
    const g = gold[i];
    const p = pred[i];
    if (g === p) {
      tp[g]++;
      hits++;
    } else {
      fp[p]++;
      fn[g]++;
    }
  }
  return hits;
}

/** Per-label true positives, false positives and false negatives at the thresholds; returns the rows all right. */
function tallyLabels(
  probs: Float64Array,
  labels: ArrayLike<number>,
  n: number,
  th: ArrayLike<number>,
  tp: Float64Array,
  fp: Float64Array,
  fn: Float64Array,
): number {
  const k = tp.length;
  let exact = 0;
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let right = true;
    for (let j = 0; j < k; j++) {
      const chosen = probs[base + j] >= th[j];
      const gold = labels[base + j] === 1;
      if (chosen && gold) tp[j]++;
      else if (chosen) fp[j]++;
      else if (gold) fn[j]++;
      if (chosen !== gold) right = false;
    }
    if (right) exact++;
  }
  return exact;
}

/** Confusion matrix: row = gold option, column = predicted option (scikit-learn's convention) [Stehman 1997]. */
export function confusionMatrix(d: Labelled): number[][] {
  const n = checkLabelled(d, "confusionMatrix");
  const pred = argmaxUnchecked(d.probs, n, d.k);
  const m = Array.from({ length: d.k }, () => new Array<number>(d.k).fill(0));
  for (let i = 0; i < n; i++) m[d.gold[i]][pred[i]]++;
  return m;
}

/** Per-option precision / recall / F1 of the argmax decision, macro F1 and micro F1 (= accuracy) [van Rijsbergen 1979]. */
export function optionScores(d: Labelled): ClassificationScores {
  const n = checkLabelled(d, "optionScores");
  checkNonEmpty(n, "optionScores");
  const pred = argmaxUnchecked(d.probs, n, d.k);
  const tp = new Float64Array(d.k);
  const fp = new Float64Array(d.k);
  const fn = new Float64Array(d.k);
  const hits = tally(pred, d.gold, n, tp, fp, fn);
  const options: OptionScore[] = [];
  let macro = 0;
  for (let j = 0; j < d.k; j++) {
    const s = score(tp[j], fp[j], fn[j]);
    options.push(s);
    macro += s.f1;
  }
  return { options, macroF1: macro / d.k, microF1: hits / n, accuracy: hits / n };
}

/** Multi-label scores: per-label P/R/F1, micro and macro F1, and subset accuracy (every label right). */
export interface MultiLabelScores {
  labels: OptionScore[];
  microF1: number;
  macroF1: number;
  subsetAccuracy: number;
}

/** Multi-label P/R/F1 with labels chosen at p >= threshold (0.5, or one threshold per label) [Lipton et al. 2014]. */
export function multiLabelScores(
  d: MultiLabel,
  thresholds: number | ArrayLike<number> = 0.5,
): MultiLabelScores {
  const n = checkMultiLabel(d, "multiLabelScores");
  checkNonEmpty(n, "multiLabelScores");
  const k = d.k;
  const th = typeof thresholds === "number" ? new Float64Array(k).fill(thresholds) : thresholds;
  if (th.length !== k) {
    throw new RangeError(
      `multiLabelScores: ${th.length} thresholds given for ${k} labels; give one per label`,
    );
  }
  const tp = new Float64Array(k);
  const fp = new Float64Array(k);
  const fn = new Float64Array(k);
  const exact = tallyLabels(d.probs, d.labels, n, th, tp, fp, fn);
  const labels: OptionScore[] = [];
  let macro = 0;
  let sTp = 0;
  let sFp = 0;
  let sFn = 0;
  for (let j = 0; j < k; j++) {
    const s = score(tp[j], fp[j], fn[j]);
    labels.push(s);
    macro += s.f1;
    sTp += tp[j];
    sFp += fp[j];
    sFn += fn[j];
  }
  return { labels, microF1: f1Of(sTp, sFp, sFn), macroF1: macro / k, subsetAccuracy: exact / n };
}
