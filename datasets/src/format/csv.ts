import { validateTask } from "../task.js";
import type { Example, Task } from "../types.js";
import { NOT_STATED } from "../types.js";
import { checkExample, indexTask, type TaskIndex } from "./check.js";
import { type Cell, csvRecords, type QuoteProblem } from "./csv-tokenize.js";
import type { Issue, ParseOptions, ParseResult, ValidationError } from "./errors.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ERRORS, failure } from "./errors.js";
import { decodeInput } from "./jsonl.js";
import { type CheckedFile, KeptRows } from "./kept-rows.js";
import { fieldsStateJson, isIndexKey } from "./state-order.js";
import { didYouMean, quoteList } from "./suggest.js";

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A field value of a state.<f> or meta.<f> cell: an unquoted JSON-style number becomes a number. */
function fieldValue(cell: Cell): unknown {
  const t = cell.text.trim();
  return !cell.quoted && NUMBER.test(t) ? Number(t) : cell.text;
}

interface Layout {
  id: number;
  split?: number;
  state?: number;
  stateFields: { name: string; col: number }[];
  metaFields: { name: string; col: number }[];
  items: Map<string, number>;
}

function at(line: number, col: number | undefined, header: string[]): string {
  return col === undefined ? `line ${line}: ` : `line ${line}, column ${col + 1} "${header[col]}": `;
}

function readHeader(cells: Cell[], task: Task, errors: ValidationError[]): Layout | undefined {
  const header = cells.map((c) => c.text.trim());
  const items = new Map<string, number>();
  const layout: Layout = { id: -1, stateFields: [], metaFields: [], items };
  const itemNames = task.items.map((i) => i.name);
  const known = ["id", "state", "split", ...itemNames];
  const seen = new Map<string, number>();
  const bad = (col: number | undefined, text: string) =>
    errors.push({
      code: "csv-header",
      line: 1,
      column: col === undefined ? undefined : col + 1,
      columnName: col === undefined ? undefined : header[col],
      message: `${at(1, col, header)}${text}`,
    });
  header.forEach((h, col) => {
    const prev = seen.get(h);
    if (prev !== undefined) {
      bad(col, `the column name "${h}" is used twice (also column ${prev + 1}); column names must be unique`);
      return;
    }
    seen.set(h, col);
    if (h === "id") layout.id = col;
    else if (h === "split") layout.split = col;
    else if (h === "state") layout.state = col;
    else if (h.startsWith("state.") && h.length > 6) layout.stateFields.push({ name: h.slice(6), col });
    else if (h.startsWith("meta.") && h.length > 5) layout.metaFields.push({ name: h.slice(5), col });
    else if (items.has(h) || itemNames.includes(h)) items.set(h, col);
    else
      bad(
        col,
        `unknown column "${h}"${didYouMean(h, known)}; columns are "id", "state" or "state.<field>", "split", "meta.<field>" and the items ${quoteList(itemNames)}`,
      );
  });
  if (layout.id < 0)
    bad(
      undefined,
      `the header has no "id" column; the first row names the columns, e.g. id,state,${itemNames[0]}`,
    );
  if (layout.state === undefined && layout.stateFields.length === 0)
    bad(
      undefined,
      `the header has no "state" column and no "state.<field>" columns; the service needs an input to read`,
    );
  if (layout.state !== undefined && layout.stateFields.length > 0)
    bad(layout.state, `use either one "state" column or "state.<field>" columns, not both`);
  return errors.length > 0 ? undefined : layout;
}

function rowObject(cells: Cell[], layout: Layout, task: Task): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  const id = cells[layout.id].text.trim();
  if (id !== "") obj.id = id;
  if (layout.state !== undefined) obj.state = cells[layout.state].text;
  else {
    const state: Record<string, unknown> = {};
    for (const f of layout.stateFields)
      if (cells[f.col].text.trim() !== "") state[f.name] = fieldValue(cells[f.col]);
    obj.state = state;
  }
  const labels: Record<string, unknown> = {};
  for (const item of task.items) {
    const col = layout.items.get(item.name);
    if (col === undefined) continue;
    const t = cells[col].text.trim();
    if (item.kind === "multi") {
      labels[item.name] =
        t === NOT_STATED
          ? NOT_STATED
          : t
              .split("|")
              .map((s) => s.trim())
              .filter((s) => s !== "");
    } else if (t !== "") labels[item.name] = t;
  }
  obj.labels = labels;
  if (layout.split !== undefined && cells[layout.split].text.trim() !== "")
    obj.split = cells[layout.split].text.trim();
  if (layout.metaFields.length > 0) {
    const meta: Record<string, unknown> = {};
    for (const f of layout.metaFields)
      if (cells[f.col].text.trim() !== "") meta[f.name] = fieldValue(cells[f.col]);
    if (Object.keys(meta).length > 0) obj.meta = meta;
  }
  return obj;
}

function columnFor(field: string, layout: Layout): number | undefined {
  if (field === "id" || field === "") return field === "id" ? layout.id : undefined;
  if (field === "split") return layout.split;
  if (field.startsWith("state")) return layout.state ?? layout.stateFields[0]?.col;
  if (field.startsWith("meta")) return layout.metaFields[0]?.col;
  const m = /^labels\.(.*?)(?:\[\d+\])?$/.exec(field);
  return m ? layout.items.get(m[1]) : undefined;
}

/** What reading a valid row again needs: the header's layout, the task, and the state's column order. */
interface RowReader {
  layout: Layout;
  task: Task;
  index: TaskIndex;
  /** The state.<field> names in column order when one is integer-like (JavaScript would list it first). */
  stateNames: string[] | undefined;
}

/** The example of a row's cells (undefined when it is not valid), with its state's column order when it matters. */
function exampleOfRow(cells: Cell[], r: RowReader): { example?: Example; id?: string; issues: Issue[] } {
  const checked = checkExample(rowObject(cells, r.layout, r.task), r.index);
  const { example } = checked;
  if (example && r.stateNames !== undefined) {
    const stateJson = fieldsStateJson(r.stateNames, example.state as Record<string, unknown>);
    if (stateJson !== undefined) example.stateJson = stateJson;
  }
  return checked;
}

/**
 * Reads a CSV file one record at a time and checks each row; `valid` gets each valid row's example and its
 * record's offsets in the text. Errors come in parseCsv's order: the header's, the quoting problems, the rows'.
 */
function scanCsv(
  input: string | Uint8Array,
  task: Task,
  opts: ParseOptions,
  valid: (example: Example, start: number, end: number) => void,
): { ok: true; text: string; reader: RowReader } | (ParseResult & { ok: false }) {
  const errors: ValidationError[] = validateTask(task);
  const max = opts.maxErrors ?? DEFAULT_MAX_ERRORS;
  if (errors.length > 0) return failure(errors, max, opts.source);
  const decoded = decodeInput(input, opts.maxBytes ?? DEFAULT_MAX_BYTES, errors);
  if (!decoded) return failure(errors, max, opts.source);
  const problems: QuoteProblem[] = [];
  const records = csvRecords(decoded.text, problems);
  const first = records.next();
  if (first.done) {
    errors.push({
      code: "csv-header",
      message: "the file is empty; the first row must name the columns (id, state, items)",
    });
    return failure(errors, max, opts.source);
  }
  const header = first.value.cells.map((c) => c.text.trim());
  const layout = readHeader(first.value.cells, task, errors);
  if (!layout) return failure(errors, max, opts.source);
  const reader: RowReader = {
    layout,
    task,
    index: indexTask(task),
    // state.<field> columns with an integer-like name: JavaScript lists it first, so the column order is kept aside
    stateNames: layout.stateFields.some((f) => isIndexKey(f.name))
      ? layout.stateFields.map((f) => f.name)
      : undefined,
  };
  const rowErrors: ValidationError[] = [];
  const firstLine = new Map<string, number>();
  for (const rec of records) {
    if (decoded.badLines.has(rec.line)) continue;
    if (rec.cells.length !== header.length) {
      rowErrors.push({
        code: "csv-ragged-row",
        line: rec.line,
        message: `line ${rec.line}: this row has ${rec.cells.length} fields but the header has ${header.length} (${quoteList(header, 8)}); a value containing a comma must be in double quotes`,
      });
      continue;
    }
    const { example, id, issues } = exampleOfRow(rec.cells, reader);
    for (const issue of issues) {
      const col = issue.code === "missing-id" ? layout.id : columnFor(issue.field, layout);
      const text =
        issue.code === "missing-id" ? `the "id" cell is empty; every example needs a unique id` : issue.text;
      rowErrors.push({
        code: issue.code,
        line: rec.line,
        column: col === undefined ? undefined : col + 1,
        columnName: col === undefined ? undefined : header[col],
        field: issue.field || undefined,
        id,
        message: at(rec.line, col, header) + text,
      });
    }
    if (id !== undefined) {
      const first = firstLine.get(id);
      if (first !== undefined)
        rowErrors.push({
          code: "duplicate-id",
          line: rec.line,
          column: layout.id + 1,
          columnName: "id",
          field: "id",
          id,
          message: `${at(rec.line, layout.id, header)}id ${JSON.stringify(id)} is a duplicate: it first appeared on line ${first}; ids must be unique`,
        });
      else firstLine.set(id, rec.line);
    }
    if (example && rowErrors.length === 0 && problems.length === 0) valid(example, rec.start, rec.end);
  }
  for (const p of problems)
    if (!decoded.badLines.has(p.line))
      errors.push({
        code: "csv-quote",
        line: p.line,
        column: p.field,
        columnName: header[p.field - 1],
        message: `${at(p.line, p.field - 1 < header.length ? p.field - 1 : undefined, header)}${p.text}`,
      });
  errors.push(...rowErrors);
  if (errors.length > 0) return failure(errors, max, opts.source);
  return { ok: true, text: decoded.text, reader };
}

/**
 * Parse CSV examples against a task: a header row with "id", either "state" or "state.<field>" columns
 * (a mapping state in column order; an empty cell leaves the field out; unquoted numbers become numbers),
 * one column per item (multi-label: options joined by "|"; an empty multi cell is []; an empty single
 * cell is no label), optional "split" and "meta.<field>" columns. Any error means no examples.
 */
export function parseCsv(input: string | Uint8Array, task: Task, opts: ParseOptions = {}): ParseResult {
  const examples: Example[] = [];
  const scanned = scanCsv(input, task, opts, (example) => examples.push(example));
  return scanned.ok ? { ok: true, examples } : scanned;
}

/**
 * A CSV file checked as `parseCsv` checks it (the same errors), without holding its examples (as `checkJsonl`):
 * their ids and splits, and `example(k)` reads the k-th valid row again from its record's text.
 */
export function checkCsv(
  input: string | Uint8Array,
  task: Task,
  opts: ParseOptions = {},
): CheckedFile | (ParseResult & { ok: false }) {
  const kept = new KeptRows();
  const scanned = scanCsv(input, task, opts, (example, start, end) => kept.add(example, start, end));
  if (!scanned.ok) return scanned;
  const { text, reader } = scanned;
  return kept.checked((start, end) => {
    const rec = csvRecords(text.slice(start, end), []).next();
    return rec.done ? undefined : exampleOfRow(rec.value.cells, reader).example;
  });
}
