/**
 * ItemData to bytes and back, so a finished run's converted rows can be stored beside it and read again in a
 * fraction of the time it takes to convert its predictions: a JSON header (the spec, the texts, where each typed
 * array lies) followed by the typed arrays' bytes.
 */

import type { ItemSpec } from "./item-spec.js";
import type { ItemData } from "./matrix.js";

/** Bumped whenever the layout or ItemData's meaning changes: stored bytes of another version are not read. */
export const ITEM_CODEC_VERSION = 1;

type Typed = Float64Array | Int32Array | Int16Array | Uint8Array;
type TypedName =
  | "confidence"
  | "served"
  | "status"
  | "split"
  | "rowProbs"
  | "use"
  | "rowOf"
  | "probs"
  | "gold"
  | "labels"
  | "goldUnknown"
  | "predUnknown"
  | "notStatedP";

const TYPED: Record<TypedName, new (n: number) => Typed> = {
  confidence: Float64Array,
  served: Int16Array,
  status: Uint8Array,
  split: Uint8Array,
  rowProbs: Float64Array,
  use: Uint8Array,
  rowOf: Int32Array,
  probs: Float64Array,
  gold: Int32Array,
  labels: Uint8Array,
  goldUnknown: Uint8Array,
  predUnknown: Uint8Array,
  notStatedP: Float64Array,
};
const NAMES = Object.keys(TYPED) as TypedName[];

interface Header {
  version: number;
  spec: ItemSpec;
  multi: boolean;
  columns: string[];
  k: number;
  rowK: number;
  m: number;
  exampleIds: string[];
  answers: ItemData["answers"];
  golds: ItemData["golds"];
  servedNames: string[];
  notes: [number, string | null, string | null][];
  /** Per typed array (in NAMES order): element count and byte offset after the header. */
  arrays: [number, number][];
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** The bytes of an item's data. */
export function encodeItemData(d: ItemData): Buffer {
  const arrays: [number, number][] = [];
  let at = 0;
  for (const name of NAMES) {
    arrays.push([d[name].length, at]);
    at = align8(at + d[name].byteLength);
  }
  const header: Header = {
    version: ITEM_CODEC_VERSION,
    spec: d.spec,
    multi: d.multi,
    columns: d.columns,
    k: d.k,
    rowK: d.rowK,
    m: d.m,
    exampleIds: d.exampleIds,
    answers: d.answers,
    golds: d.golds,
    servedNames: d.servedNames,
    notes: [...d.notes].map(([i, n]) => [i, n.reason, n.reasoning]),
    arrays,
  };
  const text = Buffer.from(JSON.stringify(header), "utf8");
  const start = align8(4 + text.length);
  const out = Buffer.alloc(start + at);
  out.writeUInt32LE(text.length, 0);
  text.copy(out, 4);
  NAMES.forEach((name, j) => {
    const a = d[name];
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), start + arrays[j][1]);
  });
  return out;
}

/**
 * The item data stored in `bytes`, or undefined when they were written by another codec version or for another
 * spec of the item (the caller then converts the predictions again).
 */
export function decodeItemData(bytes: Uint8Array, spec: ItemSpec): ItemData | undefined {
  if (bytes.length < 4) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(0, true);
  if (4 + length > bytes.length) return undefined;
  const header = JSON.parse(
    Buffer.from(bytes.buffer, bytes.byteOffset + 4, length).toString("utf8"),
  ) as Header;
  if (header.version !== ITEM_CODEC_VERSION || JSON.stringify(header.spec) !== JSON.stringify(spec)) {
    return undefined;
  }
  const start = align8(4 + length);
  const typed = {} as Record<TypedName, Typed>;
  for (let j = 0; j < NAMES.length; j++) {
    const [count, offset] = header.arrays[j];
    const a = new TYPED[NAMES[j]](count);
    if (start + offset + a.byteLength > bytes.length) return undefined;
    // a copy: the stored bytes need not be aligned for a view of the element type
    new Uint8Array(a.buffer).set(bytes.subarray(start + offset, start + offset + a.byteLength));
    typed[NAMES[j]] = a;
  }
  return {
    spec,
    multi: header.multi,
    columns: header.columns,
    k: header.k,
    rowK: header.rowK,
    m: header.m,
    exampleIds: header.exampleIds,
    answers: header.answers,
    golds: header.golds,
    servedNames: header.servedNames,
    notes: new Map(header.notes.map(([i, reason, reasoning]) => [i, { reason, reasoning }])),
    ...(typed as unknown as Pick<ItemData, TypedName>),
  };
}
