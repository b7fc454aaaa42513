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

/** A spec's label names and value columns, made once per spec object (a commit's examples share their run's). */
const namesOf = new WeakMap<ItemSpec, { names: string[]; columns: string[] }>();

/** The analysis columns of one decision of an answered example. */
export function itemValues(
  spec: ItemSpec,
  example: { ordinal: number; exampleId: string; split: Split; servedBy: string | null },
  d: DecisionFields,
): ItemValues {
  let made = namesOf.get(spec);
  if (!made) {
    made = { names: labelNames(spec), columns: valueColumns(spec) };
    namesOf.set(spec, made);
  }
  const { names, columns } = made;
  let probs: Uint8Array | null = null;
  if (d.probabilities) {
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

/**
 * One answered example's values of every item, as the `data` of its loose item_values row (the example's
 * ordinal, id, split and served model are the row's own columns). Per item: its index in the run's items (u16),
 * status (u8), flags (u8: 1 probabilities, 2 confidence, 4 gold list, 8 answer list), confidence (f64), gold and
 * answer codes (i32), the lists (u8 count, then one byte per option index), the probabilities (u8 count, f64 each).
 */
export function encodeExampleValues(items: readonly { index: number; values: ItemValues }[]): Buffer {
  const list = (code: LabelCode) => (code !== null && typeof code === "object" ? code : null);
  let size = 2;
  for (const { values: v } of items) {
    size += 20 + 1 + (v.probs ? v.probs.byteLength : 0);
    for (const l of [list(v.gold), list(v.answer)]) if (l) size += 1 + l.length;
  }
  const out = Buffer.alloc(size);
  let at = out.writeUInt16LE(items.length, 0);
  for (const { index, values: v } of items) {
    const gold = list(v.gold);
    const answer = list(v.answer);
    const flags = (v.probs ? 1 : 0) | (v.confidence !== null ? 2 : 0) | (gold ? 4 : 0) | (answer ? 8 : 0);
    at = out.writeUInt16LE(index, at);
    at = out.writeUInt8(v.status, at);
    at = out.writeUInt8(flags, at);
    at = out.writeDoubleLE(v.confidence ?? 0, at);
    at = out.writeInt32LE(typeof v.gold === "number" ? v.gold : -1, at);
    at = out.writeInt32LE(typeof v.answer === "number" ? v.answer : -1, at);
    for (const l of [gold, answer]) {
      if (!l) continue;
      at = out.writeUInt8(l.length, at);
      out.set(l, at);
      at += l.length;
    }
    const probs = v.probs ?? new Uint8Array(0);
    at = out.writeUInt8(probs.byteLength / 8, at);
    out.set(probs, at);
    at += probs.byteLength;
  }
  return out;
}

/** The values of one item read back from an example's loose row (undefined when the example has none of it). */
export function decodeExampleValues(
  row: { ordinal: number; exampleId: string; split: number; servedBy: string | null; data: Uint8Array },
  itemIndex: number,
): ItemValues | undefined {
  const b = Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
  const count = b.readUInt16LE(0);
  let at = 2;
  for (let t = 0; t < count; t++) {
    const index = b.readUInt16LE(at);
    const flags = b.readUInt8(at + 3);
    if (index !== itemIndex) {
      // another item's values: stepped over, nothing read
      at += 20;
      if (flags & 4) at += 1 + b[at];
      if (flags & 8) at += 1 + b[at];
      at += 1 + 8 * b[at];
      continue;
    }
    const status = b.readUInt8(at + 2);
    const confidence = flags & 2 ? b.readDoubleLE(at + 4) : null;
    // -1: none, or a text that is no option (the analysis reads both alike)
    const code = (c: number): LabelCode => (c < 0 ? null : c);
    let gold = code(b.readInt32LE(at + 12));
    let answer = code(b.readInt32LE(at + 16));
    at += 20;
    const list = (): Buffer => {
      const n = b[at];
      const out = Buffer.from(b.subarray(at + 1, at + 1 + n));
      at += 1 + n;
      return out;
    };
    if (flags & 4) gold = list();
    if (flags & 8) answer = list();
    const k = b.readUInt8(at);
    at += 1;
    const probs = flags & 1 ? Buffer.from(b.subarray(at, at + 8 * k)) : null;
    return {
      ordinal: row.ordinal,
      exampleId: row.exampleId,
      split: row.split,
      status,
      servedBy: row.servedBy,
      confidence,
      gold,
      answer,
      probs,
    };
  }
  return undefined;
}
