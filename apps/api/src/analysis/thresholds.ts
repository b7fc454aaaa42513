import { labelThresholds, type MultiLabel, multiLabelScores } from "@decision-workbench/calibration";
import type { ItemData } from "./matrix.js";

/** One label's threshold curve and its F1-tuned threshold against the fixed 0.5. */
export interface LabelCurve {
  label: string;
  curve: { t: number; precision: number; recall: number; f1: number }[];
  /** The threshold maximising F1 on these rows (null when the label never applies). */
  tuned: number | null;
  f1At05: number;
  f1Tuned: number;
}

/** Threshold grid of the curves: 0, 0.02, ..., 1 (51 points). */
export const CURVE_POINTS = 51;

/** Per-label precision / recall / F1 over a threshold grid, and the F1-optimal threshold (multi-label items). */
export function thresholdCurves(d: ItemData): LabelCurve[] | undefined {
  if (!d.multi || d.m === 0) return undefined;
  const data: MultiLabel = { probs: d.probs, k: d.k, labels: d.labels };
  const tuned = labelThresholds(data, "f1");
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
  }));
}
