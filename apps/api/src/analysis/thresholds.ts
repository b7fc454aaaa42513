import {
  assignFolds,
  labelThresholds,
  type MultiLabel,
  multiLabelScores,
  subset,
} from "@decision-workbench/calibration";
import type { LabelCurve } from "../shapes/reports.js";
import type { ItemData } from "./matrix.js";

/** Folds of the cross-validated F1 of a tuned threshold. */
export const TUNING_FOLDS = 5;

/**
 * Per label, the F1 of thresholds tuned (F1-optimal) on TUNING_FOLDS - 1 folds and applied to the remaining one,
 * true and false positives pooled over the folds: an honest estimate of a tuned threshold's F1 on new rows.
 */
export function heldOutTunedF1(d: MultiLabel): (number | null)[] {
  const n = d.probs.length / d.k;
  if (n < TUNING_FOLDS) return Array.from({ length: d.k }, () => null);
  const fold = assignFolds(n, TUNING_FOLDS, 0);
  const tp = new Float64Array(d.k);
  const fp = new Float64Array(d.k);
  const fn = new Float64Array(d.k);
  const train = new Int32Array(n);
  const test = new Int32Array(n);
  for (let f = 0; f < TUNING_FOLDS; f++) {
    let a = 0;
    let b = 0;
    for (let i = 0; i < n; i++) {
      if (fold[i] === f) test[b++] = i;
      else train[a++] = i;
    }
    const tuned = labelThresholds(subset(d, train.subarray(0, a)), "f1");
    for (let j = 0; j < d.k; j++) {
      const t = tuned[j].threshold ?? 0.5;
      for (let r = 0; r < b; r++) {
        const i = test[r];
        const on = d.probs[i * d.k + j] >= t;
        const y = d.labels[i * d.k + j] === 1;
        if (on && y) tp[j]++;
        else if (on) fp[j]++;
        else if (y) fn[j]++;
      }
    }
  }
  return Array.from(tp, (x, j) => (2 * x + fp[j] + fn[j] > 0 ? (2 * x) / (2 * x + fp[j] + fn[j]) : 0));
}

/** Threshold grid of the curves: 0, 0.02, ..., 1 (51 points). */
const CURVE_POINTS = 51;

/**
 * Per-label precision / recall / F1 over a threshold grid, the F1-optimal threshold of these rows with its F1 here
 * (optimistic), and the cross-validated F1 of a tuned threshold on rows it did not see (multi-label items).
 */
export function thresholdCurves(d: ItemData): LabelCurve[] | undefined {
  if (!d.multi || d.m === 0) return undefined;
  const data: MultiLabel = { probs: d.probs, k: d.k, labels: d.labels };
  const tuned = labelThresholds(data, "f1");
  const heldOut = heldOutTunedF1(data);
  const curves = d.columns.map(() => [] as LabelCurve["curve"]);
  for (let i = 0; i < CURVE_POINTS; i++) {
    const t = i === CURVE_POINTS - 1 ? 1 : i / (CURVE_POINTS - 1);
    const s = multiLabelScores(data, t);
    s.labels.forEach((l, j) => {
      curves[j].push({ t, precision: l.precision, recall: l.recall, f1: l.f1 });
    });
  }
  return d.columns.map((label, j) => ({
    label,
    curve: curves[j],
    tuned: tuned[j].threshold,
    f1At05: tuned[j].scoreAtHalf,
    f1Tuned: tuned[j].threshold === null ? tuned[j].scoreAtHalf : tuned[j].score,
    f1TunedHeldOut: heldOut[j],
  }));
}
