import {
  type Labelled,
  type MultiLabel,
  multiLabelTop,
  type TopLabel,
  topLabel,
} from "@decision-workbench/calibration";
import type { ItemData } from "./matrix.js";

/** The usable rows of an item as the calibration library's input: Labelled (single-label) or MultiLabel. */
export function libraryData(d: ItemData): Labelled | MultiLabel {
  return d.multi ? { probs: d.probs, k: d.k, labels: d.labels } : { probs: d.probs, k: d.k, gold: d.gold };
}

/** The usable rows with other probabilities (e.g. calibrated ones), same gold. */
export function withProbs(d: ItemData, probs: Float64Array): ItemData {
  return { ...d, probs };
}

/**
 * The top-label view of the usable rows: confidence and correctness. Single-label: max probability and argmax =
 * gold; multi-label: the least sure option's max(p, 1 - p) and every option decided right at 0.5.
 */
export function topView(d: ItemData): TopLabel {
  if (d.m === 0) return { p: new Float64Array(0), y: new Uint8Array(0) };
  return d.multi ? multiLabelTop(libraryData(d) as MultiLabel) : topLabel(libraryData(d) as Labelled);
}
