import { checkLabelled, checkMultiLabel, checkNonEmpty } from "../input.js";
import type { Labelled, MultiLabel } from "../types.js";
import { argmaxUnchecked } from "../views.js";

/** Precision, recall and F1 of one option or label; 0 where undefined (scikit-learn's zero_division = 0). */
export interface OptionScore {
  precision: number;
  recall: number;
  f1: number;
  /** Items whose gold is this option (or where this label applies). */
  support: number;
  /** Items predicted as this option (or where this label is chosen). */
  predicted: number;
}

/** Per-option scores with macro and micro F1. */
export interface ClassificationScores {
  options: OptionScore[];
  macroF1: number;
  microF1: number;
  accuracy: number;
}

function score(tp: number, fp: number, fn: number): OptionScore {
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  const f1 = 2 * tp + fp + fn > 0 ? (2 * tp) / (2 * tp + fp + fn) : 0;
  return { precision, recall, f1, support: tp + fn, predicted: tp + fp };
}

/** Share of items whose most probable option is the gold one (top-1 accuracy) [Guo et al. 2017]. */
export function accuracy(d: Labelled): number {
  const n = checkLabelled(d, "accuracy");
  checkNonEmpty(n, "accuracy");
  const pred = argmaxUnchecked(d.probs, n, d.k);
  let hits = 0;
  for (let i = 0; i < n; i++) if (pred[i] === d.gold[i]) hits++;
  return hits / n;
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
  let hits = 0;
  for (let i = 0; i < n; i++) {
    const g = d.gold[i];
    const p = pred[i];
    if (g === p) {
      tp[g]++;
      hits++;
    } else {
      fp[p]++;
      fn[g]++;
    }
  }
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
  let exact = 0;
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let right = true;
    for (let j = 0; j < k; j++) {
      const chosen = d.probs[base + j] >= th[j];
      const gold = d.labels[base + j] === 1;
      if (chosen && gold) tp[j]++;
      else if (chosen) fp[j]++;
      else if (gold) fn[j]++;
      if (chosen !== gold) right = false;
    }
    if (right) exact++;
  }
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
  return { labels, microF1: score(sTp, sFp, sFn).f1, macroF1: macro / k, subsetAccuracy: exact / n };
}
