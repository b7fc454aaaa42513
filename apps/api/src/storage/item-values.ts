/**
 * The analysis columns of one stored decision (run x example x item), written in the same transaction as the
 * answer: what every report reads, so no report parses a stored decision. A label (gold or answer) is stored as a
 * code of the item's spec: null, an option index, or a list of option indices (see `labelCode`).
 */

import { NOT_STATED } from "@decision-workbench/datasets";
import type { ItemSpec } from "../analysis/item-spec.js";
import type { Split } from "./types.js";

/** Split codes of the stored columns (and of the analysis' typed arrays). */
export const SPLIT_NAMES: readonly Split[] = ["train", "calibration", "test"];

/** Status codes of the stored columns. */
export const STATUS_NAMES = ["answered", "unknown", "escalated"] as const;

/**
 * A stored label: null (none); an index into `labelNames(spec)` (a single option, or `not stated`); -1 (a text
 * that is not an option of the spec); or the option indices of a list (multi-label), one byte each (items have at
 * most 255 options).
 */
export type LabelCode = number | Uint8Array | null;

/** One stored decision's analysis columns. */
export interface ItemValues {
  ordinal: number;
  exampleId: string;
  /** Index into SPLIT_NAMES. */
  split: number;
  /** Index into STATUS_NAMES. */
  status: number;
  servedBy: string | null;
  confidence: number | null;
  gold: LabelCode;
  answer: LabelCode;
  /**
   * The probabilities of `valueColumns(spec)` as little-endian doubles (NaN where the decision has none), or null
   * when it has no probabilities.
   */
  probs: Uint8Array | null;
}

/**
 * The columns a decision's probabilities are stored in: the options, then `not stated` when the item allows it
 * (single-label: a class of the simplex; multi-label: kept apart by the analysis).
 */
export function valueColumns(spec: ItemSpec): string[] {
  return spec.notStated ? [...spec.options, NOT_STATED] : [...spec.options];
}

/** The names a single label code indexes: the options, then `not stated` (always, so any stored label reads back). */
export function labelNames(spec: ItemSpec): string[] {
  return [...spec.options, NOT_STATED];
}

/** The code of a gold label or an answer. */
function labelCode(names: readonly string[], label: string | string[] | null | undefined): LabelCode {
  if (label === null || label === undefined) return null;
  if (Array.isArray(label)) {
    const out: number[] = [];
    for (const l of label) {
      const j = names.indexOf(l);
      if (j >= 0 && j < names.length - 1) out.push(j);
    }
    return Buffer.from(out);
  }
  return names.indexOf(label);
}

/** The fields of a decision its analysis columns are made of. */
export interface DecisionFields {
  gold: string | string[] | null;
  status: "answered" | "unknown" | "escalated";
  answer: string | string[] | null;
  confidence: number | null;
  probabilities: Record<string, number> | null;
}

/** The analysis columns of one decision of an answered example. */
export function itemValues(
  spec: ItemSpec,
  example: { ordinal: number; exampleId: string; split: Split; servedBy: string | null },
  d: DecisionFields,
): ItemValues {
  const names = labelNames(spec);
  let probs: Uint8Array | null = null;
  if (d.probabilities) {
    const columns = valueColumns(spec);
    const values = new Float64Array(columns.length);
    for (let j = 0; j < columns.length; j++) {
      const v = d.probabilities[columns[j]];
      values[j] = typeof v === "number" ? v : Number.NaN;
    }
    probs = Buffer.from(values.buffer);
  }
  const status = STATUS_NAMES.indexOf(d.status);
  return {
    ordinal: example.ordinal,
    exampleId: example.exampleId,
    split: Math.max(SPLIT_NAMES.indexOf(example.split), 0),
    status: status < 0 ? 2 : status,
    servedBy: example.servedBy,
    confidence: typeof d.confidence === "number" ? d.confidence : null,
    gold: labelCode(names, d.gold),
    answer: labelCode(names, d.answer),
    probs,
  };
}
