import { NOT_STATED, type Split } from "@decision-workbench/datasets";
import type { PredictionRow } from "../storage/types.js";
import { reasoningText } from "./export.js";
import type { ItemSpec } from "./item-spec.js";

/** Status codes of the typed arrays. */
export const ANSWERED = 0;
export const UNKNOWN = 1;
export const ESCALATED = 2;
const STATUS_CODE = { answered: ANSWERED, unknown: UNKNOWN, escalated: ESCALATED } as const;

/** Row usability codes. */
export const USABLE = 0;
export const ESCALATED_ROW = 1;
export const INVALID = 2;
export const UNLABELLED = 3;

/** Split codes of the typed arrays. */
export const SPLIT_NAMES: readonly Split[] = ["train", "calibration", "test"];

/**
 * One item's stored predictions as typed arrays, converted once. Every row keeps its status and split; the usable
 * rows (not escalated, probabilities present and valid, gold present and valid) also have an N x K probability matrix
 * and gold indices (single-label) or N x K 0/1 labels (multi-label). Multi-label matrices hold the options only; the
 * `not stated` probability is kept apart.
 */
export interface ItemData {
  spec: ItemSpec;
  multi: boolean;
  /** Probability columns: the options, plus `not stated` last for a single-label item that allows it. */
  columns: string[];
  k: number;
  /** Every row: example, decision, gold and confidence (NaN when none). */
  exampleIds: string[];
  answers: (string | string[] | null)[];
  golds: (string | string[] | null)[];
  confidence: Float64Array;
  /** Per row: index into servedNames of the model version that answered (-1 when not named). */
  served: Int16Array;
  servedNames: string[];
  status: Uint8Array;
  split: Uint8Array;
  /**
   * Per row: the stored probabilities of `columns` (multi-label items that allow Unknown: then `not stated`), NaN
   * where the row has none; `rowK` values a row.
   */
  rowProbs: Float64Array;
  rowK: number;
  /** Per row index: the reason (escalations) and the reasoning text, for the rows that have one. */
  notes: Map<number, { reason: string | null; reasoning: string | null }>;
  /** Per row: USABLE, or why it is not measured (ESCALATED_ROW, INVALID: probabilities missing or out of range, UNLABELLED). */
  use: Uint8Array;
  /** Usable rows. */
  m: number;
  /** Row index of each usable row. */
  rowOf: Int32Array;
  probs: Float64Array;
  gold: Int32Array;
  labels: Uint8Array;
  /** Per usable row: the gold is `not stated`; the decision was Unknown. */
  goldUnknown: Uint8Array;
  predUnknown: Uint8Array;
  /** Multi-label items that allow Unknown: the `not stated` probability of each usable row (else empty). */
  notStatedP: Float64Array;
}

function goldIndex(columns: string[], gold: PredictionRow["gold"]): number {
  if (typeof gold !== "string") return -1;
  return columns.indexOf(gold);
}

/** Converts one item's rows (in the order given) into typed arrays. */
export function itemData(spec: ItemSpec, rows: readonly PredictionRow[]): ItemData {
  const multi = spec.kind === "multi";
  const columns = multi || !spec.notStated ? [...spec.options] : [...spec.options, NOT_STATED];
  const k = columns.length;
  const n = rows.length;
  const status = new Uint8Array(n);
  const split = new Uint8Array(n);
  const exampleIds = new Array<string>(n);
  const answers = new Array<string | string[] | null>(n);
  const golds = new Array<string | string[] | null>(n);
  const confidence = new Float64Array(n);
  const served = new Int16Array(n);
  const servedNames: string[] = [];
  const rowOf = new Int32Array(n);
  const probs = new Float64Array(n * k);
  const gold = new Int32Array(multi ? 0 : n);
  const labels = new Uint8Array(multi ? n * k : 0);
  const goldUnknown = new Uint8Array(n);
  const predUnknown = new Uint8Array(n);
  const notStatedP = new Float64Array(multi && spec.notStated ? n : 0);
  const use = new Uint8Array(n);
  const rowK = multi && spec.notStated ? k + 1 : k;
  const rowProbs = new Float64Array(n * rowK).fill(Number.NaN);
  const notes = new Map<number, { reason: string | null; reasoning: string | null }>();
  let m = 0;
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    exampleIds[i] = r.exampleId;
    answers[i] = r.answer ?? null;
    golds[i] = r.gold ?? null;
    confidence[i] = typeof r.confidence === "number" ? r.confidence : Number.NaN;
    if (r.servedBy) {
      let c = servedNames.indexOf(r.servedBy);
      if (c < 0) c = servedNames.push(r.servedBy) - 1;
      served[i] = c;
    } else served[i] = -1;
    const s = STATUS_CODE[r.status] ?? ESCALATED;
    status[i] = s;
    const sp = SPLIT_NAMES.indexOf(r.split);
    split[i] = Math.max(sp, 0);
    const reasoning = reasoningText(r.record);
    const reason = r.reason && r.reason !== NOT_STATED ? r.reason : null;
    if (reasoning !== null || reason !== null) notes.set(i, { reason, reasoning });
    const p = r.probabilities;
    if (p) {
      for (let j = 0; j < k; j++) {
        const v = p[columns[j]];
        if (typeof v === "number") rowProbs[i * rowK + j] = v;
      }
      if (rowK > k && typeof p[NOT_STATED] === "number") rowProbs[i * rowK + k] = p[NOT_STATED];
    }
    if (s === ESCALATED) {
      use[i] = ESCALATED_ROW;
      continue;
    }
    if (!p) {
      use[i] = INVALID;
      continue;
    }
    const base = m * k;
    let ok = true;
    for (let j = 0; j < k; j++) {
      const v = p[columns[j]];
      if (!(typeof v === "number" && v >= 0 && v <= 1)) {
        ok = false;
        break;
      }
      probs[base + j] = v;
    }
    if (ok && multi && spec.notStated) {
      const v = p[NOT_STATED];
      if (!(typeof v === "number" && v >= 0 && v <= 1)) ok = false;
      else notStatedP[m] = v;
    }
    if (!ok) {
      use[i] = INVALID;
      continue;
    }
    if (r.gold === null || r.gold === undefined) {
      use[i] = UNLABELLED;
      continue;
    }
    if (multi) {
      if (Array.isArray(r.gold)) {
        for (const g of r.gold) {
          const j = columns.indexOf(g);
          if (j >= 0) labels[base + j] = 1;
        }
      } else if (r.gold === NOT_STATED) {
        goldUnknown[m] = 1;
      } else {
        const j = columns.indexOf(r.gold);
        if (j < 0) {
          use[i] = UNLABELLED;
          continue;
        }
        labels[base + j] = 1;
      }
    } else {
      const g = goldIndex(columns, r.gold);
      if (g < 0) {
        use[i] = UNLABELLED;
        continue;
      }
      gold[m] = g;
      goldUnknown[m] = r.gold === NOT_STATED ? 1 : 0;
    }
    predUnknown[m] = s === UNKNOWN ? 1 : 0;
    rowOf[m] = i;
    m++;
  }
  return {
    spec,
    multi,
    columns,
    k,
    exampleIds,
    answers,
    golds,
    confidence,
    served,
    servedNames,
    status,
    split,
    rowProbs,
    rowK,
    notes,
    use,
    m,
    rowOf: rowOf.slice(0, m),
    probs: probs.slice(0, m * k),
    gold: multi ? gold : gold.slice(0, m),
    labels: multi ? labels.slice(0, m * k) : labels,
    goldUnknown: goldUnknown.slice(0, m),
    predUnknown: predUnknown.slice(0, m),
    notStatedP: notStatedP.slice(0, notStatedP.length ? m : 0),
  };
}

/** The rows of `d` whose split is one of `splits` (all rows when null), as a new ItemData. */
export function restrictSplits(d: ItemData, splits: readonly Split[] | null): ItemData {
  if (splits === null) return d;
  const keep = new Uint8Array(3);
  for (const s of splits) keep[SPLIT_NAMES.indexOf(s)] = 1;
  return restrictRows(d, (i) => keep[d.split[i]] === 1);
}

/** The rows of `d` for which `keep(row)` holds, as a new ItemData (rows keep their order); `d` itself when all do. */
export function restrictRows(d: ItemData, keep: (row: number) => boolean): ItemData {
  const n = d.status.length;
  const newRow = new Int32Array(n).fill(-1);
  let c = 0;
  for (let i = 0; i < n; i++) if (keep(i)) newRow[i] = c++;
  if (c === n) return d;
  const kept = new Int32Array(c);
  for (let i = 0; i < n; i++) if (newRow[i] >= 0) kept[newRow[i]] = i;
  const pick = <T>(xs: ArrayLike<T>): T[] => Array.from(kept, (i) => xs[i]);
  const rowK = d.rowK;
  const rowProbs = new Float64Array(c * rowK);
  for (let t = 0; t < c; t++)
    rowProbs.set(d.rowProbs.subarray(kept[t] * rowK, (kept[t] + 1) * rowK), t * rowK);
  const notes = new Map<number, { reason: string | null; reasoning: string | null }>();
  for (const [i, note] of d.notes) if (newRow[i] >= 0) notes.set(newRow[i], note);
  const usable: number[] = [];
  for (let u = 0; u < d.m; u++) if (newRow[d.rowOf[u]] >= 0) usable.push(u);
  return selectUsable(
    {
      ...d,
      exampleIds: pick(d.exampleIds),
      answers: pick(d.answers),
      golds: pick(d.golds),
      confidence: Float64Array.from(kept, (i) => d.confidence[i]),
      served: Int16Array.from(kept, (i) => d.served[i]),
      status: Uint8Array.from(kept, (i) => d.status[i]),
      split: Uint8Array.from(kept, (i) => d.split[i]),
      use: Uint8Array.from(kept, (i) => d.use[i]),
      rowProbs,
      notes,
    },
    usable,
    (u) => newRow[d.rowOf[u]],
  );
}

/** Counts of rows by usability: usable, escalated, invalid and unlabelled. */
export function usabilityCounts(d: ItemData): {
  usable: number;
  escalated: number;
  invalid: number;
  unlabelled: number;
} {
  const c = [0, 0, 0, 0];
  for (let i = 0; i < d.use.length; i++) c[d.use[i]]++;
  return { usable: c[USABLE], escalated: c[ESCALATED_ROW], invalid: c[INVALID], unlabelled: c[UNLABELLED] };
}

/** The usable rows `usable` (indices into d's usable arrays, repeats allowed) with their new row indices. */
export function selectUsable(
  d: ItemData,
  usable: readonly number[],
  rowIndex: (u: number) => number,
): ItemData {
  const m = usable.length;
  const k = d.k;
  const probs = new Float64Array(m * k);
  const gold = new Int32Array(d.multi ? 0 : m);
  const labels = new Uint8Array(d.multi ? m * k : 0);
  const goldUnknown = new Uint8Array(m);
  const predUnknown = new Uint8Array(m);
  const notStatedP = new Float64Array(d.notStatedP.length ? m : 0);
  const rowOf = new Int32Array(m);
  for (let t = 0; t < m; t++) {
    const u = usable[t];
    probs.set(d.probs.subarray(u * k, u * k + k), t * k);
    if (d.multi) labels.set(d.labels.subarray(u * k, u * k + k), t * k);
    else gold[t] = d.gold[u];
    goldUnknown[t] = d.goldUnknown[u];
    predUnknown[t] = d.predUnknown[u];
    if (notStatedP.length) notStatedP[t] = d.notStatedP[u];
    rowOf[t] = rowIndex(u);
  }
  return { ...d, m, rowOf, probs, gold, labels, goldUnknown, predUnknown, notStatedP };
}

/** The distinct model versions that answered the rows (the replies' served_by), sorted. */
export function servedModels(d: ItemData): string[] {
  const seen = new Uint8Array(d.servedNames.length);
  for (let i = 0; i < d.served.length; i++) if (d.served[i] >= 0) seen[d.served[i]] = 1;
  return d.servedNames.filter((_, c) => seen[c] === 1).sort();
}

/** A row's stored probabilities as an object (options in order, then `not stated`), or null when it has none. */
export function rowProbabilities(d: ItemData, row: number): Record<string, number> | null {
  const out: Record<string, number> = {};
  let any = false;
  for (let j = 0; j < d.rowK; j++) {
    const v = d.rowProbs[row * d.rowK + j];
    if (Number.isNaN(v)) continue;
    out[j < d.k ? d.columns[j] : NOT_STATED] = v;
    any = true;
  }
  return any ? out : null;
}
