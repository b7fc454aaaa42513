/** Dataset upload checks, validation errors by line, and label counts per split. */

import type { DatasetDetail, DatasetError, Split, Task } from "@decision-workbench/api/shapes";

/**
 * A located error as the upload form lists it: the API's (400 invalid_dataset details), or one the form found
 * before sending (then without a code).
 */
export type ValidationError = Omit<DatasetError, "code"> & { code?: string };

/**
 * "Line 3, column 2 (label): message", or just the message when it has no place. A message that starts with its
 * own "line 3, column 2:" keeps only one copy of the place.
 */
export function formatValidationError(e: ValidationError): string {
  const where: string[] = [];
  if (e.line !== undefined) where.push(`Line ${e.line}`);
  if (e.column !== undefined) where.push(`column ${e.column}`);
  const name = e.columnName ?? e.field;
  const place = where.join(", ") + (name ? `${where.length ? " " : ""}(${name})` : "");
  const message = where.length ? e.message.replace(/^line \d+(, column \d+)?[:,]\s*/i, "") : e.message;
  return place ? `${place}: ${message}` : message;
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

/** The upload form's values. */
export interface UploadValues {
  taskText: string;
  format: "jsonl" | "csv";
  content: string;
}

/** Checks what can be checked before sending: the task is JSON with a name and items, the data is not empty. */
export function parseUpload(
  v: UploadValues,
):
  | { ok: true; body: { task: Task; format: "jsonl" | "csv"; content: string } }
  | { ok: false; errors: ValidationError[] } {
  const errors: ValidationError[] = [];
  let task: Task | null = null;
  if (!v.taskText.trim()) {
    errors.push({
      field: "task",
      message: "Paste or choose the task definition (JSON with name, description and items).",
    });
  } else {
    try {
      const parsed: unknown = JSON.parse(v.taskText);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
        errors.push({
          field: "task",
          message: "The task must be a JSON object with name, description and items.",
        });
      } else {
        const t = parsed as Partial<Task>;
        if (typeof t.name !== "string" || !t.name.trim())
          errors.push({ field: "task.name", message: "The task needs a name (a string)." });
        if (!Array.isArray(t.items) || t.items.length === 0)
          errors.push({
            field: "task.items",
            message: "The task needs at least one item (a question about each example).",
          });
        task = parsed as Task;
      }
    } catch (e) {
      const msg = (e as Error).message;
      const m = /position (\d+)/.exec(msg);
      const at = m ? lineColumn(v.taskText, Number(m[1])) : null;
      errors.push({
        field: "task",
        line: at?.line,
        column: at?.column,
        message: `The task is not valid JSON: ${msg}`,
      });
    }
  }
  if (!v.content.trim()) {
    errors.push({
      field: "data",
      message: `Paste or choose the examples (${v.format === "csv" ? "CSV with a header row" : "one JSON object per line"}).`,
    });
  }
  if (errors.length || !task) return { ok: false, errors };
  return { ok: true, body: { task, format: v.format, content: v.content } };
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
