import { NOT_STATED, type Split } from "@decision-workbench/datasets";
import type { ExampleIds } from "../storage/example-ids.js";
import { columnsOf, type ItemColumns, labelAt } from "../storage/item-columns.js";
import { itemValues, labelNames, SPLIT_NAMES, valueColumns } from "../storage/item-values.js";
import type { AnalysisRow } from "../storage/types.js";
import type { ItemSpec } from "./item-spec.js";

export { SPLIT_NAMES };

/** Status codes of the typed arrays (storage/item-values.ts STATUS_NAMES). */
export const ANSWERED = 0;
export const UNKNOWN = 1;
export const ESCALATED = 2;

/** Row usability codes. */
const USABLE = 0;
const ESCALATED_ROW = 1;
const INVALID = 2;
const UNLABELLED = 3;

/**
 * One item's stored analysis columns as typed arrays. Every row keeps its status and split; the usable
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
  /** Every row: example (made only when read), decision, gold and confidence (NaN when none). */
  exampleIds: ExampleIds;
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

/** Converts one item's decisions (in the order given) into typed arrays, as if stored and read back. */
export function itemData(spec: ItemSpec, rows: Iterable<AnalysisRow>): ItemData {
  const values = [...rows].map((r, ordinal) => itemValues(spec, { ...r, ordinal }, r));
  return itemDataOf(spec, columnsOf(valueColumns(spec).length, values));
}

/**
 * An item's data from its stored columns: every row keeps its status and split; the usable rows (not escalated,
 * probabilities present and in [0, 1], gold an option) also get their probability matrix and gold.
 */
export function itemDataOf(spec: ItemSpec, c: ItemColumns): ItemData {
  const multi = spec.kind === "multi";
  const columns = multi || !spec.notStated ? [...spec.options] : [...spec.options, NOT_STATED];
  const names = labelNames(spec);
  const k = columns.length;
  const rowK = multi && spec.notStated ? k + 1 : k;
  const n = c.n;
  const rowProbs = c.rowK === rowK ? c.probs : new Float64Array(n * rowK).fill(Number.NaN);
  const use = new Uint8Array(n);
  const rowOf = new Int32Array(n);
  const golds: (string | string[] | null)[] = new Array(n);
  const answers: (string | string[] | null)[] = new Array(n);
  const goldOf = (i: number) => labelAt(c.gold, c.goldLists, i);
  let m = 0;
  for (let i = 0; i < n; i++) {
    golds[i] = labelText(names, goldOf(i));
    answers[i] = labelText(names, labelAt(c.answer, c.answerLists, i));
    use[i] = rowUse(i);
    if (use[i] === USABLE) rowOf[m++] = i;
  }
  function rowUse(i: number): number {
    if (c.status[i] === ESCALATED) return ESCALATED_ROW;
    if (!c.hasProbs[i] || c.rowK !== rowK) return INVALID;
    for (let j = 0; j < rowK; j++) {
      const x = rowProbs[i * rowK + j];
      if (!(x >= 0 && x <= 1)) return INVALID;
    }
    const g = goldOf(i);
    if (g === null) return UNLABELLED;
    if (typeof g === "number") {
      // multi-label: an option, or `not stated` (index k); single-label: one of the columns
      if (multi ? g > k : g >= k) return UNLABELLED;
    } else if (!multi) return UNLABELLED;
    return USABLE;
  }
  const probs = new Float64Array(m * k);
  const gold = new Int32Array(multi ? 0 : m);
  const labels = new Uint8Array(multi ? m * k : 0);
  const goldUnknown = new Uint8Array(m);
  const predUnknown = new Uint8Array(m);
  const notStatedP = new Float64Array(multi && spec.notStated ? m : 0);
  for (let u = 0; u < m; u++) {
    const i = rowOf[u];
    for (let j = 0; j < k; j++) probs[u * k + j] = rowProbs[i * rowK + j];
    const g = goldOf(i) as number | number[];
    if (multi) {
      if (typeof g !== "number") for (const j of g) labels[u * k + j] = 1;
      else if (g < k) labels[u * k + g] = 1;
      goldUnknown[u] = g === k ? 1 : 0;
      if (notStatedP.length) notStatedP[u] = rowProbs[i * rowK + k];
    } else {
      gold[u] = g as number;
      goldUnknown[u] = names[g as number] === NOT_STATED ? 1 : 0;
    }
    predUnknown[u] = c.status[i] === UNKNOWN ? 1 : 0;
  }
  return {
    spec,
    multi,
    columns,
    k,
    exampleIds: c.exampleIds,
    answers,
    golds,
    confidence: c.confidence,
    served: c.served,
    servedNames: c.servedNames,
    status: c.status,
    split: c.split,
    rowProbs,
    rowK,
    use,
    m,
    rowOf: rowOf.slice(0, m),
    probs,
    gold,
    labels,
    goldUnknown,
    predUnknown,
    notStatedP,
  };
}

/** A label code as the label's text (a list of option names for a list). */
function labelText(names: readonly string[], code: number | number[] | null): string | string[] | null {
  if (code === null) return null;
  if (typeof code === "number") return names[code] ?? null;
  return code.map((j) => names[j]);
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
  const usable: number[] = [];
  for (let u = 0; u < d.m; u++) if (newRow[d.rowOf[u]] >= 0) usable.push(u);
  return selectUsable(
    {
      ...d,
      exampleIds: d.exampleIds.pick(kept),
      answers: pick(d.answers),
      golds: pick(d.golds),
      confidence: Float64Array.from(kept, (i) => d.confidence[i]),
      served: Int16Array.from(kept, (i) => d.served[i]),
      status: Uint8Array.from(kept, (i) => d.status[i]),
      split: Uint8Array.from(kept, (i) => d.split[i]),
      use: Uint8Array.from(kept, (i) => d.use[i]),
      rowProbs,
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
    // element by element: a subarray per row costs more than the copy
    for (let j = 0; j < k; j++) probs[t * k + j] = d.probs[u * k + j];
    if (d.multi) for (let j = 0; j < k; j++) labels[t * k + j] = d.labels[u * k + j];
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
