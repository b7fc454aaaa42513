/** Multi-label threshold curves: precision, recall and F1 against the threshold, per label. */

import type { LabelCurve } from "@decision-workbench/api/shapes";

/** One label's curve in percent units, with the marks to draw. */
export interface ThresholdSeries {
  label: string;
  points: { t: number; precision: number; recall: number; f1: number }[];
  /** Tuned threshold (%), null when the label never applies. */
  tuned: number | null;
  /** F1 at 0.5 and at the tuned threshold (shares). */
  f1At05: number;
  f1Tuned: number;
  /** F1 gained by tuning on these rows (share; optimistic: the threshold was chosen on the same rows). */
  gain: number;
  /** F1 of a tuned threshold on rows it did not see (cross-validated), null when the API gave none. */
  f1HeldOut: number | null;
  /** What tuning buys on unseen rows: held-out tuned F1 minus F1 at 0.5 (null without the held-out F1). */
  gainHeldOut: number | null;
}

/** Curves sorted by threshold, in percent. */
export function thresholdSeries(t: LabelCurve): ThresholdSeries {
  const points = [...t.curve]
    .sort((a, b) => a.t - b.t)
    .map((p) => ({ t: p.t * 100, precision: p.precision * 100, recall: p.recall * 100, f1: p.f1 * 100 }));
  return {
    label: t.label,
    points,
    tuned: t.tuned === null ? null : t.tuned * 100,
    f1At05: t.f1At05,
    f1Tuned: t.f1Tuned,
    gain: t.f1Tuned - t.f1At05,
    f1HeldOut: t.f1TunedHeldOut ?? null,
    gainHeldOut:
      t.f1TunedHeldOut === undefined || t.f1TunedHeldOut === null ? null : t.f1TunedHeldOut - t.f1At05,
  };
}

/**
 * Every label's series, the labels that gain most from tuning first: by the held-out gain when the API gives it
 * (the in-sample gain flatters tuning), else by the in-sample gain.
 */
export function thresholdTable(ts: LabelCurve[]): ThresholdSeries[] {
  const key = (s: ThresholdSeries) => s.gainHeldOut ?? s.gain;
  return ts.map(thresholdSeries).sort((a, b) => key(b) - key(a) || a.label.localeCompare(b.label));
}
