import { NOT_STATED, type Split } from "@decision-workbench/datasets";
import { type ItemValues, itemValues, labelNames, labelOf, SPLIT_NAMES } from "../storage/item-values.js";
import type { AnalysisRow } from "../storage/types.js";
import type { ItemSpec } from "./item-spec.js";

export { SPLIT_NAMES };

/** Status codes of the typed arrays (storage/item-values.ts STATUS_NAMES). */
export const ANSWERED = 0;
export const UNKNOWN = 1;
export const ESCALATED = 2;

/** Row usability codes. */
export const USABLE = 0;
export const ESCALATED_ROW = 1;
export const INVALID = 2;
export const UNLABELLED = 3;

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
  const b = new ItemDataBuilder(spec);
  let ordinal = 0;
  for (const r of rows) b.add(itemValues(spec, { ...r, ordinal: ordinal++ }, r));
  return b.finish();
}

function grow<T extends Float64Array | Int32Array | Uint8Array | Int16Array>(
  a: T,
  need: number,
  fill?: number,
): T {
  if (need <= a.length) return a;
  const bigger = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2, 64));
  if (fill !== undefined) bigger.fill(fill, a.length);
  bigger.set(a);
  return bigger;
}

/** Builds an item's typed arrays one row at a time (so rows can be read in pages and dropped). */
export class ItemDataBuilder {
  private readonly multi: boolean;
  private readonly columns: string[];
  /** What a stored label code indexes. */
  private readonly names: string[];
  private readonly k: number;
  private readonly rowK: number;
  private n = 0;
  private m = 0;
  private status = new Uint8Array(0);
  private split = new Uint8Array(0);
  private readonly exampleIds: string[] = [];
  private readonly answers: (string | string[] | null)[] = [];
  private readonly golds: (string | string[] | null)[] = [];
  private confidence = new Float64Array(0);
  private served = new Int16Array(0);
  private readonly servedNames: string[] = [];
  private use = new Uint8Array(0);
  private rowProbs = new Float64Array(0);
  private rowOf = new Int32Array(0);
  private probs = new Float64Array(0);
  private gold = new Int32Array(0);
  private labels = new Uint8Array(0);
  private goldUnknown = new Uint8Array(0);
  private predUnknown = new Uint8Array(0);
  private notStatedP = new Float64Array(0);

  /**
   * `rows`: how many rows will be added, when known (a run's answered examples, for one item on every split). The
   * arrays are then made that size at once, instead of growing by doubling and being copied again by `finish`:
   * about 20 MB less memory in use at once while 100,000 rows are converted.
   */
  constructor(
    private readonly spec: ItemSpec,
    rows = 0,
  ) {
    this.multi = spec.kind === "multi";
    this.columns = this.multi || !spec.notStated ? [...spec.options] : [...spec.options, NOT_STATED];
    this.names = labelNames(spec);
    this.k = this.columns.length;
    this.rowK = this.multi && spec.notStated ? this.k + 1 : this.k;
    if (rows > 0) {
      this.reserveRows(rows);
      this.reserveUsable(rows);
    }
  }

  /** Makes room for `rows` rows in the arrays of every row. */
  private reserveRows(rows: number): void {
    this.status = grow(this.status, rows);
    this.split = grow(this.split, rows);
    this.confidence = grow(this.confidence, rows);
    this.served = grow(this.served, rows);
    this.use = grow(this.use, rows);
    this.rowProbs = grow(this.rowProbs, rows * this.rowK, Number.NaN);
  }

  /** Makes room for `usable` rows in the arrays of the usable rows. */
  private reserveUsable(usable: number): void {
    const k = this.k;
    this.rowOf = grow(this.rowOf, usable);
    this.probs = grow(this.probs, usable * k);
    this.goldUnknown = grow(this.goldUnknown, usable);
    this.predUnknown = grow(this.predUnknown, usable);
    if (this.multi) {
      this.labels = grow(this.labels, usable * k);
      if (this.spec.notStated) this.notStatedP = grow(this.notStatedP, usable);
    } else this.gold = grow(this.gold, usable);
  }

  /** Adds one stored decision. */
  add(v: ItemValues): void {
    const { k, rowK, multi, spec, names } = this;
    const i = this.n++;
    this.reserveRows(i + 1);
    this.exampleIds.push(v.exampleId);
    this.answers.push(labelOf(names, v.answer));
    this.golds.push(labelOf(names, v.gold));
    this.confidence[i] = v.confidence ?? Number.NaN;
    if (v.servedBy) {
      let c = this.servedNames.indexOf(v.servedBy);
      if (c < 0) c = this.servedNames.push(v.servedBy) - 1;
      this.served[i] = c;
    } else this.served[i] = -1;
    const s = v.status;
    this.status[i] = s;
    this.split[i] = v.split;
    const p = v.probs;
    const at = i * rowK;
    if (p && p.byteLength === rowK * 8) {
      const view = new DataView(p.buffer, p.byteOffset, p.byteLength);
      for (let j = 0; j < rowK; j++) this.rowProbs[at + j] = view.getFloat64(j * 8, true);
    }
    if (s === ESCALATED) {
      this.use[i] = ESCALATED_ROW;
      return;
    }
    if (!p || p.byteLength !== rowK * 8) {
      this.use[i] = INVALID;
      return;
    }
    // a usable row has every probability (NaN where the decision had none) in [0, 1]
    for (let j = 0; j < rowK; j++) {
      const x = this.rowProbs[at + j];
      if (!(x >= 0 && x <= 1)) {
        this.use[i] = INVALID;
        return;
      }
    }
    const gold = v.gold;
    if (gold === null) {
      this.use[i] = UNLABELLED;
      return;
    }
    let goldIdx = 0;
    let goldNs = 0;
    let applies: ArrayLike<number> = [];
    if (multi) {
      if (typeof gold !== "number") applies = gold;
      else if (gold === k)
        goldNs = 1; // `not stated` follows the options
      else if (gold >= 0 && gold < k) applies = [gold];
      else {
        this.use[i] = UNLABELLED;
        return;
      }
    } else {
      goldIdx = typeof gold === "number" && gold >= 0 && gold < k ? gold : -1;
      if (goldIdx < 0) {
        this.use[i] = UNLABELLED;
        return;
      }
      goldNs = names[goldIdx] === NOT_STATED ? 1 : 0;
    }
    const u = this.m++;
    this.reserveUsable(u + 1);
    for (let j = 0; j < k; j++) this.probs[u * k + j] = this.rowProbs[at + j];
    if (multi) {
      for (let t = 0; t < applies.length; t++) this.labels[u * k + applies[t]] = 1;
      if (spec.notStated) this.notStatedP[u] = this.rowProbs[at + k];
    } else this.gold[u] = goldIdx;
    this.goldUnknown[u] = goldNs;
    this.predUnknown[u] = s === UNKNOWN ? 1 : 0;
    this.rowOf[u] = i;
  }

  /**
   * The item data of the rows added so far. An array filled exactly is handed over as it is (rows are only ever
   * appended, and the next add past its end replaces it); any other is copied to its length.
   */
  finish(): ItemData {
    const { n, m, k, rowK, multi } = this;
    const fit = <T extends Float64Array | Int32Array | Uint8Array | Int16Array>(a: T, length: number): T =>
      a.length === length ? a : (a.slice(0, length) as T);
    return {
      spec: this.spec,
      multi,
      columns: this.columns,
      k,
      exampleIds: this.exampleIds,
      answers: this.answers,
      golds: this.golds,
      confidence: fit(this.confidence, n),
      served: fit(this.served, n),
      servedNames: this.servedNames,
      status: fit(this.status, n),
      split: fit(this.split, n),
      rowProbs: fit(this.rowProbs, n * rowK),
      rowK,
      use: fit(this.use, n),
      m,
      rowOf: fit(this.rowOf, m),
      probs: fit(this.probs, m * k),
      gold: multi ? new Int32Array(0) : fit(this.gold, m),
      labels: multi ? fit(this.labels, m * k) : new Uint8Array(0),
      goldUnknown: fit(this.goldUnknown, m),
      predUnknown: fit(this.predUnknown, m),
      notStatedP: multi && this.spec.notStated ? fit(this.notStatedP, m) : new Float64Array(0),
    };
  }
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
      exampleIds: pick(d.exampleIds),
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
