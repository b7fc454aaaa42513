/**
 * One item's stored analysis columns as typed arrays, and their packed form. A run's answers are kept as loose
 * rows (item_values, one per answered example with every item's values, written with the answer) until
 * CHUNK_ROWS of them are there; then the commit that brings the last one packs them into one chunk per item
 * (item_chunks): a JSON header (served model names, multi-label lists), the example ids (JSON, parsed only when
 * read) and the typed arrays' bytes.
 * Reading 100,000 decisions of an item is then ~25 chunk reads instead of 100,000 row reads.
 */

import { ExampleIds } from "./example-ids.js";
import type { ItemValues, LabelCode } from "./item-values.js";

/** Decisions per packed chunk. */
export const CHUNK_ROWS = 4096;

/** A label code in the arrays: >= 0 an index into the spec's label names, -1 none, -2 a list (see `lists`). */
const NO_LABEL = -1;
const LIST = -2;

/** One item's decisions as typed arrays (row i of every array is one decision). */
export interface ItemColumns {
  n: number;
  /** Probabilities a row holds (the item's stored value columns). */
  rowK: number;
  ordinal: Int32Array;
  /** Made only when read (example-ids.ts). */
  exampleIds: ExampleIds;
  split: Uint8Array;
  status: Uint8Array;
  /** Index into servedNames, -1 when the reply named none. */
  served: Int16Array;
  servedNames: string[];
  /** NaN when none. */
  confidence: Float64Array;
  gold: Int32Array;
  answer: Int32Array;
  /** The option indices of the rows whose gold (or answer) is a list. */
  goldLists: Map<number, number[]>;
  answerLists: Map<number, number[]>;
  /** n x rowK, NaN where the decision has none. */
  probs: Float64Array;
  /** 1 where the decision has probabilities. */
  hasProbs: Uint8Array;
}

function codeOf(code: LabelCode, row: number, lists: Map<number, number[]>): number {
  if (code === null) return NO_LABEL;
  if (typeof code === "number") return code;
  lists.set(row, Array.from(code));
  return LIST;
}

/** The label code of a row read back (a list, an index, or null). */
export function labelAt(
  codes: Int32Array,
  lists: Map<number, number[]>,
  row: number,
): number | number[] | null {
  const c = codes[row];
  if (c === LIST) return lists.get(row) ?? [];
  return c < 0 ? null : c;
}

/** Loose rows as columns. */
export function columnsOf(rowK: number, values: readonly ItemValues[]): ItemColumns {
  const n = values.length;
  const cols = emptyColumns(n, rowK);
  const served = new Map<string, number>();
  cols.exampleIds = ExampleIds.of(values.map((v) => v.exampleId));
  values.forEach((v, i) => {
    cols.ordinal[i] = v.ordinal;
    cols.split[i] = v.split;
    cols.status[i] = v.status;
    cols.confidence[i] = v.confidence ?? Number.NaN;
    cols.gold[i] = codeOf(v.gold, i, cols.goldLists);
    cols.answer[i] = codeOf(v.answer, i, cols.answerLists);
    cols.served[i] = v.servedBy === null ? -1 : servedIndex(cols, served, v.servedBy);
    if (v.probs && v.probs.byteLength === rowK * 8) {
      cols.hasProbs[i] = 1;
      const view = new DataView(v.probs.buffer, v.probs.byteOffset, v.probs.byteLength);
      for (let j = 0; j < rowK; j++) cols.probs[i * rowK + j] = view.getFloat64(j * 8, true);
    }
  });
  return cols;
}

/** The index of a served model's name in `c.servedNames` (`index` maps the names already there), added if new. */
function servedIndex(c: ItemColumns, index: Map<string, number>, name: string): number {
  let s = index.get(name);
  if (s === undefined) {
    s = c.servedNames.push(name) - 1;
    index.set(name, s);
  }
  return s;
}

function emptyColumns(n: number, rowK: number): ItemColumns {
  return {
    n,
    rowK,
    ordinal: new Int32Array(n),
    exampleIds: ExampleIds.of([]),
    split: new Uint8Array(n),
    status: new Uint8Array(n),
    served: new Int16Array(n),
    servedNames: [],
    confidence: new Float64Array(n),
    gold: new Int32Array(n),
    answer: new Int32Array(n),
    goldLists: new Map(),
    answerLists: new Map(),
    probs: new Float64Array(n * rowK).fill(Number.NaN),
    hasProbs: new Uint8Array(n),
  };
}

type Typed = Float64Array | Int32Array | Int16Array | Uint8Array;
/** The typed arrays of a chunk, in their byte order (8-byte elements first, so each starts aligned). */
const ARRAYS = [
  "confidence",
  "probs",
  "ordinal",
  "gold",
  "answer",
  "served",
  "split",
  "status",
  "hasProbs",
] as const;

/**
 * A chunk's JSON header. Its example ids follow it as a JSON array of `idsBytes` bytes, read only when asked for
 * (chunks packed before had them in the header, as `exampleIds`).
 */
interface ChunkHeader {
  n: number;
  rowK: number;
  idsBytes?: number;
  exampleIds?: string[];
  servedNames: string[];
  goldLists: [number, number[]][];
  answerLists: [number, number[]][];
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** Rows packed into chunks of at most CHUNK_ROWS rows, in order: what a store appends to `item_chunks`. */
export function packChunks(rowK: number, values: readonly ItemValues[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < values.length; at += CHUNK_ROWS) {
    out.push(encodeColumns(columnsOf(rowK, values.slice(at, at + CHUNK_ROWS))));
  }
  return out;
}

/** The packed bytes of some columns. */
function encodeColumns(c: ItemColumns): Buffer {
  const ids = Buffer.from(JSON.stringify(c.exampleIds.list()), "utf8");
  const header: ChunkHeader = {
    n: c.n,
    rowK: c.rowK,
    idsBytes: ids.length,
    servedNames: c.servedNames,
    goldLists: [...c.goldLists],
    answerLists: [...c.answerLists],
  };
  const text = Buffer.from(JSON.stringify(header), "utf8");
  const start = align8(4 + text.length + ids.length);
  const size = ARRAYS.reduce((s, name) => s + c[name].byteLength, 0);
  const out = Buffer.alloc(start + size);
  out.writeUInt32LE(text.length, 0);
  text.copy(out, 4);
  ids.copy(out, 4 + text.length);
  let at = start;
  for (const name of ARRAYS) {
    const a = c[name];
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  return out;
}

/** Columns read back from their packed bytes. */
export function decodeColumns(bytes: Uint8Array): ItemColumns {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(0, true);
  const h = JSON.parse(
    Buffer.from(bytes.buffer, bytes.byteOffset + 4, length).toString("utf8"),
  ) as ChunkHeader;
  const c = emptyColumns(h.n, h.rowK);
  const idsAt = 4 + length;
  const idsBytes = h.idsBytes ?? 0;
  // a copy of the ids' bytes only: the chunk's own bytes are not kept
  c.exampleIds = h.exampleIds
    ? ExampleIds.of(h.exampleIds)
    : ExampleIds.parsed(h.n, new Uint8Array(bytes.subarray(idsAt, idsAt + idsBytes)));
  c.servedNames = h.servedNames;
  c.goldLists = new Map(h.goldLists);
  c.answerLists = new Map(h.answerLists);
  let at = align8(idsAt + idsBytes);
  for (const name of ARRAYS) {
    const a: Typed = c[name];
    // a copy: the stored bytes need not be aligned for a view of the element type
    new Uint8Array(a.buffer, a.byteOffset, a.byteLength).set(bytes.subarray(at, at + a.byteLength));
    at += a.byteLength;
  }
  return c;
}

/**
 * Several parts (chunks and loose rows) as one set of columns in run order (by ordinal), keeping only the rows
 * whose split is one of `splits` (split codes; all rows when undefined). The kept rows are copied once, straight
 * into columns of their number (a report on one split of a 100k run copies its third, not the run and then the
 * third).
 */
export function joinColumns(
  rowK: number,
  parts: readonly ItemColumns[],
  splits?: readonly number[],
): ItemColumns {
  const kept = parts.map((p) => keptRows(p, splits));
  if (parts.length === 1 && kept[0] === null) {
    return ascending(parts[0].ordinal) ? parts[0] : pick(parts[0], ordinalOrder(parts[0]));
  }
  const k = parts[0]?.rowK ?? rowK;
  for (const p of parts) {
    if (p.rowK !== k) {
      throw new Error(`an item's stored parts disagree on its probabilities a row (${p.rowK} and ${k})`);
    }
  }
  const out = emptyColumns(
    kept.reduce((s, rows, i) => s + (rows ? rows.length : parts[i].n), 0),
    k,
  );
  const served = new Map<string, number>();
  let at = 0;
  parts.forEach((p, i) => {
    const names = p.servedNames.map((name) => servedIndex(out, served, name));
    at = appendRows(out, p, kept[i], names, at);
  });
  out.exampleIds = ExampleIds.joined(parts.map((p, i) => ({ ids: p.exampleIds, rows: kept[i] })));
  return ascending(out.ordinal) ? out : pick(out, ordinalOrder(out));
}

/** The rows of `c` in run order (by ordinal). */
function ordinalOrder(c: ItemColumns): Int32Array {
  return Int32Array.from(c.ordinal.keys()).sort((a, b) => c.ordinal[a] - c.ordinal[b]);
}

/** The rows of `p` whose split is one of `splits`; null when that is every row. */
function keptRows(p: ItemColumns, splits: readonly number[] | undefined): Int32Array | null {
  if (splits === undefined) return null;
  const rows = new Int32Array(p.n);
  let m = 0;
  for (let i = 0; i < p.n; i++) if (splits.includes(p.split[i])) rows[m++] = i;
  return m === p.n ? null : rows.subarray(0, m);
}

/**
 * Appends the rows `rows` of `p` (every row when null) to `out` at row `at`, its served models renumbered by
 * `names`; returns the next free row.
 */
function appendRows(
  out: ItemColumns,
  p: ItemColumns,
  rows: Int32Array | null,
  names: number[],
  at: number,
): number {
  const k = out.rowK;
  if (rows === null) {
    for (const name of ["ordinal", "split", "status", "confidence", "gold", "answer", "hasProbs"] as const) {
      out[name].set(p[name], at);
    }
    out.probs.set(p.probs, at * k);
    for (const [i, list] of p.goldLists) out.goldLists.set(at + i, list);
    for (const [i, list] of p.answerLists) out.answerLists.set(at + i, list);
    for (let i = 0; i < p.n; i++) out.served[at + i] = p.served[i] < 0 ? -1 : names[p.served[i]];
    return at + p.n;
  }
  for (let t = 0; t < rows.length; t++) {
    const i = rows[t];
    const o = at + t;
    out.ordinal[o] = p.ordinal[i];
    out.split[o] = p.split[i];
    out.status[o] = p.status[i];
    out.served[o] = p.served[i] < 0 ? -1 : names[p.served[i]];
    out.confidence[o] = p.confidence[i];
    out.gold[o] = p.gold[i];
    out.answer[o] = p.answer[i];
    if (p.gold[i] === LIST) out.goldLists.set(o, p.goldLists.get(i) ?? []);
    if (p.answer[i] === LIST) out.answerLists.set(o, p.answerLists.get(i) ?? []);
    out.hasProbs[o] = p.hasProbs[i];
    for (let j = 0; j < k; j++) out.probs[o * k + j] = p.probs[i * k + j];
  }
  return at + rows.length;
}

/** The given rows of `c`, in that order. */
function pick(c: ItemColumns, rows: Int32Array): ItemColumns {
  const out = emptyColumns(rows.length, c.rowK);
  out.servedNames = c.servedNames;
  out.exampleIds = c.exampleIds.pick(rows);
  appendRows(
    out,
    c,
    rows,
    c.servedNames.map((_, s) => s),
    0,
  );
  return out;
}

function ascending(xs: Int32Array): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i] <= xs[i - 1]) return false;
  return true;
}
