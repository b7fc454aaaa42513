import { createHash } from "node:crypto";
import type { Example, Task } from "./types.js";

/** JSON with object keys sorted recursively (undefined values dropped, as JSON.stringify does). */
function sortedJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : sortedJson(v))).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(obj[k])}`).join(",")}}`;
}

/** The indices of `ids` in id order (code unit order; equal ids keep their order). */
function idOrder(ids: readonly string[]): Int32Array {
  return Int32Array.from(ids.keys()).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : a - b));
}

function canonicalExample(e: Example): string {
  const labels: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.labels)) labels[k] = Array.isArray(v) ? [...v].sort() : v;
  // The state keeps its own key order at every depth: the service reads it in that order (its file's order,
  // `stateJson`, when the parsed state lost it).
  const parts = [`"id":${JSON.stringify(e.id)}`, `"labels":${sortedJson(labels)}`];
  if (e.meta !== undefined) parts.push(`"meta":${sortedJson(e.meta)}`);
  parts.push(`"split":${JSON.stringify(e.split)}`, `"state":${e.stateJson ?? JSON.stringify(e.state)}`);
  return `{${parts.join(",")}}`;
}

/**
 * The canonical text of a dataset: `{"examples":[...],"task":{...}}` with object keys sorted recursively,
 * except inside each state (kept as given: key order is meaningful), examples sorted by id and multi-label
 * lists sorted.
 */
export function canonicalDataset(task: Task, examples: Example[]): string {
  const order = idOrder(examples.map((e) => e.id));
  return `{"examples":[${Array.from(order, (k) => canonicalExample(examples[k])).join(",")}],"task":${sortedJson(task)}}`;
}

/** Hex SHA-256 of a dataset's canonical content (see `canonicalDataset`). */
export function datasetHash(task: Task, examples: Example[]): string {
  return datasetHashOf(
    task,
    examples.map((e) => e.id),
    (k) => examples[k],
  );
}

/**
 * `datasetHash` of examples given by their ids and `exampleAt(k)` (k in the ids' order), each read once, in id
 * order, and let go: for a dataset too large to hold parsed (see `checkJsonl`).
 */
export function datasetHashOf(task: Task, ids: readonly string[], exampleAt: (k: number) => Example): string {
  const order = idOrder(ids);
  const h = createHash("sha256");
  h.update(`{"examples":[`);
  order.forEach((k, i) => {
    h.update((i > 0 ? "," : "") + canonicalExample(exampleAt(k)));
  });
  h.update(`],"task":${sortedJson(task)}}`);
  return h.digest("hex");
}
