/** Dataset upload checks, validation errors by line, and label counts per split. */

import type { DatasetDetail, DatasetError, Split, Task } from "@decision-workbench/api/shapes";

/**
 * A located error as the upload form lists it: the API's (400 invalid_dataset details), or one the form found
 * before sending (then without a code).
 */
export type ValidationError = Omit<DatasetError, "code"> & { code?: string };

/** A message as a sentence: its first letter a capital, ending with a full stop (or its own "?" / "!"). */
export function sentence(message: string): string {
  const t = message.trim().replace(/[;:,]$/, "");
  if (!t) return t;
  const first = t[0].toUpperCase() + t.slice(1);
  return /[.?!]$/.test(first) ? first : `${first}.`;
}

/** The place a message starts with, as the dataset parser and the task check write it. */
const PLACE_PREFIX =
  /^(?:line \d+(?:, column \d+)?(?: "[^"]*")?(?:, "[^"]*")?|task(?: [\w.[\]]+)?|examples\[\d+\](?:, "[^"]*")?):\s*/i;

/** A message without the place it starts with, as a sentence ("line 2, column 4: bad" → "Bad."). */
export function placeless(message: string): string {
  return sentence(message.replace(PLACE_PREFIX, ""));
}

/** "Item 2, options" for the task field `items[1].options`; "Source" for `provenance.source`. */
export function taskFieldPlace(field: string): string {
  if (field === "") return "The task";
  const m = /^items\[(\d+)\](?:\.(\w+))?/.exec(field);
  if (m) return `Item ${Number(m[1]) + 1}${m[2] ? `, ${m[2] === "notStated" ? "not stated" : m[2]}` : ""}`;
  const last = field.replace(/^provenance\./, "");
  return last === "labels" ? "How the labels were made" : sentence(last).slice(0, -1);
}

/**
 * One located error as a sentence: `Line 3, column 2 ("label"): "x" is not an option of q; expected one of
 * "yes", "no".` The place is said once (the message's own "line 3, column 2:" is dropped); a CSV column is
 * named, a task field read as the form's ("Item 1, options: …"), a message without a place kept whole.
 */
export function formatValidationError(e: ValidationError): string {
  const message = placeless(e.message);
  if (e.line !== undefined) {
    const col = e.column !== undefined ? `, column ${e.column}` : "";
    const name = e.columnName ? ` ("${e.columnName}")` : "";
    return `Line ${e.line}${col}${name}: ${message}`;
  }
  if (e.field !== undefined && /^task\b/i.test(e.message)) return `${taskFieldPlace(e.field)}: ${message}`;
  return message;
}

/**
 * What an upload's refusal says above its list: how many problems, that nothing was stored, and how many are
 * listed when the API listed only the first ones (its message starts "<file>: 57 errors, …").
 */
export function uploadErrorSummary(error: { code: string; message: string }, listed: number): string {
  const m = /(\d+) errors?\b/.exec(error.message.split("\n")[0]);
  const total = Math.max(listed, m ? Number(m[1]) : listed);
  const what = error.code === "invalid_task" ? "The task has" : "The examples have";
  const count = total === 1 ? "1 problem" : `${total.toLocaleString("en-US")} problems`;
  const shown = total > listed ? `, the first ${listed} listed here` : "";
  return `${what} ${count}${shown}; nothing was stored.`;
}

/** Validation errors from an API error's details, sorted by line then column; non-errors are dropped. */
export function validationErrors(details: unknown[]): ValidationError[] {
  return details
    .filter(
      (d): d is ValidationError =>
        !!d && typeof d === "object" && typeof (d as ValidationError).message === "string",
    )
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/** Line and column (1-based) of a character offset in a text. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/** The format a file name suggests. */
export function formatOf(fileName: string): "jsonl" | "csv" | null {
  const n = fileName.toLowerCase();
  if (n.endsWith(".csv")) return "csv";
  if (n.endsWith(".jsonl") || n.endsWith(".ndjson") || n.endsWith(".json")) return "jsonl";
  return null;
}

/** One row of the label-count table. */
export interface LabelCountRow {
  item: string;
  label: string;
  train: number;
  calibration: number;
  test: number;
  total: number;
}

/** Label counts pivoted to one row per item and label with a column per split, in the task's option order. */
export function labelCountRows(d: Pick<DatasetDetail, "labelCounts" | "items">): LabelCountRow[] {
  const rows = new Map<string, LabelCountRow>();
  for (const c of d.labelCounts) {
    const key = `${c.item}\u0000${c.label}`;
    let r = rows.get(key);
    if (!r) {
      r = { item: c.item, label: c.label, train: 0, calibration: 0, test: 0, total: 0 };
      rows.set(key, r);
    }
    r[c.split as Split] += c.count;
    r.total += c.count;
  }
  const itemOrder = new Map(d.items.map((it, i) => [it.name, i]));
  const optionOrder = (item: string, labelName: string) => {
    const it = d.items.find((x) => x.name === item);
    const i = it ? it.options.indexOf(labelName) : -1;
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  return [...rows.values()].sort(
    (a, b) =>
      (itemOrder.get(a.item) ?? 1e9) - (itemOrder.get(b.item) ?? 1e9) ||
      optionOrder(a.item, a.label) - optionOrder(b.item, b.label) ||
      a.label.localeCompare(b.label),
  );
}

/** "source · licence" as the task gives them (an upload's as given at upload); "not given" for a missing one. */
export function sourceAndLicence(task: Pick<Task, "provenance">): string {
  const p = task.provenance as Partial<Task["provenance"]> | undefined;
  const given = (s: string | undefined) => s?.trim() || "not given";
  return `${given(p?.source)} · ${given(p?.licence)}`;
}
