import { isUtf8 } from "node:buffer";
import { validateTask } from "../task.js";
import type { Example, Task } from "../types.js";
import { checkExample, indexTask, type TaskIndex } from "./check.js";
import { DEFAULT_MAX_DEPTH, tooDeepAt } from "./depth.js";
import type { Issue, ParseOptions, ParseResult, ValidationError } from "./errors.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ERRORS, failure, formatBytes } from "./errors.js";
import { JsonSyntaxError, parseLocated } from "./json-located.js";
import { type CheckedFile, KeptRows } from "./kept-rows.js";
import { lineStateJson } from "./state-order.js";
import { findInvalidUtf8, latin1Hint } from "./utf8.js";

/** Turn input bytes or text into text, reporting the size limit and invalid UTF-8 (by line). */
export function decodeInput(
  input: string | Uint8Array,
  maxBytes: number,
  errors: ValidationError[],
): { text: string; badLines: Set<number> } | undefined {
  const size = typeof input === "string" ? Buffer.byteLength(input, "utf8") : input.byteLength;
  if (size > maxBytes) {
    errors.push({
      code: "file-too-large",
      message: `the file is ${formatBytes(size)}, over the limit of ${formatBytes(maxBytes)}; split it into smaller files (or raise maxBytes)`,
    });
    return undefined;
  }
  const badLines = new Set<number>();
  if (typeof input === "string") return { text: input.replace(/^\uFEFF/, ""), badLines };
  try {
    // Fast path: the native decoder accepts the bytes; the byte scan runs only to locate bad ones.
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(input), badLines };
  } catch {
    // fall through to locate the invalid sequences
  }
  for (const b of findInvalidUtf8(input).bad) {
    badLines.add(b.line);
    errors.push({
      code: "invalid-utf8",
      line: b.line,
      column: b.column,
      message: `line ${b.line}, column ${b.column}: ${latin1Hint(b.byte)}`,
    });
  }
  return { text: new TextDecoder("utf-8").decode(input), badLines };
}

/** "line 4312, column 27, "labels.is_spam": " — the location prefix of a message. */
function at(line: number, column: number | undefined, field: string | undefined): string {
  return `line ${line}${column !== undefined ? `, column ${column}` : ""}${field ? `, ${JSON.stringify(field)}` : ""}: `;
}

function columnOf(line: string, issue: Issue): number | undefined {
  if (issue.field === "") return undefined;
  let loc: ReturnType<typeof parseLocated>;
  try {
    loc = parseLocated(line);
  } catch {
    return undefined;
  }
  const off = (issue.atKey ? loc.keyAt : loc.valueAt).get(issue.field) ?? loc.valueAt.get(issue.field);
  return off === undefined ? undefined : off + 1;
}

/** A line's example when it is valid, and its id either way when it has one; its problems go to `errors`. */
function readLine(
  line: string,
  n: number,
  index: TaskIndex,
  maxDepth: number,
  errors: ValidationError[],
): { example?: Example; id?: string } {
  const deep = tooDeepAt(line, maxDepth);
  if (deep >= 0) {
    errors.push({
      code: "too-deep",
      line: n,
      column: deep + 1,
      message: `${at(n, deep + 1, undefined)}objects and lists nest more than ${maxDepth} levels deep here (the example object is level 1); flatten the state or meta to at most ${maxDepth} levels`,
    });
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    let column = 1;
    let text = "not valid JSON";
    try {
      parseLocated(line);
    } catch (e) {
      if (e instanceof JsonSyntaxError) {
        column = e.offset + 1;
        text = `not valid JSON: ${e.message}`;
      }
    }
    if (n === 1 && line.trim() === "[")
      text += "; the file looks like one JSON array, but JSONL needs one example object per line";
    errors.push({ code: "invalid-json", line: n, column, message: at(n, column, undefined) + text });
    return {};
  }
  const { example, id, issues } = checkExample(value, index);
  for (const issue of issues) {
    const column = columnOf(line, issue);
    errors.push({
      code: issue.code,
      line: n,
      column,
      field: issue.field || undefined,
      id,
      message: at(n, column, issue.field) + issue.text,
    });
  }
  return { example, id };
}

/** The example of a valid line, with its state's file order (`stateJson`) when JSON.stringify would lose it. */
function withStateJson(line: string, example: Example): Example {
  const stateJson = lineStateJson(line, example.state);
  if (stateJson !== undefined) example.stateJson = stateJson;
  return example;
}

/**
 * A file's text, read a line at a time: from decoded text, or straight from valid UTF-8 bytes (each line decoded
 * when it is read, so no text of the whole file is made). Offsets are characters of the text or bytes.
 */
interface LineSource {
  length: number;
  /** The offset of the next newline at or after `from`, or `length`. */
  newline(from: number): number;
  /** Whether the character (or byte) at `at` is a carriage return. */
  isCR(at: number): boolean;
  slice(start: number, end: number): string;
}

function textLines(text: string): LineSource {
  return {
    length: text.length,
    newline: (from) => {
      const at = text.indexOf("\n", from);
      return at < 0 ? text.length : at;
    },
    isCR: (at) => text.charCodeAt(at) === 13,
    slice: (start, end) => text.slice(start, end),
  };
}

function byteLines(bytes: Uint8Array): LineSource {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    length: buf.length,
    newline: (from) => {
      const at = buf.indexOf(10, from);
      return at < 0 ? buf.length : at;
    },
    isCR: (at) => buf[at] === 13,
    slice: (start, end) => buf.toString("utf8", start, end),
  };
}

/**
 * The file's lines: valid UTF-8 bytes are read as they are (a byte-order mark skipped); text, or bytes with
 * invalid UTF-8 (whose lines are reported and skipped: `badLines`), through decodeInput. Undefined when too large.
 */
function linesOf(
  input: string | Uint8Array,
  maxBytes: number,
  errors: ValidationError[],
): { lines: LineSource; first: number; badLines: Set<number> } | undefined {
  if (typeof input !== "string" && input.byteLength <= maxBytes && isUtf8(input)) {
    const bom = input.length >= 3 && input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf;
    return { lines: byteLines(input), first: bom ? 3 : 0, badLines: new Set() };
  }
  const decoded = decodeInput(input, maxBytes, errors);
  return decoded && { lines: textLines(decoded.text), first: 0, badLines: decoded.badLines };
}

/**
 * Reads a file's lines one at a time (no array of every line) and checks each, ids unique; `valid` is called with
 * each valid example's line (its start and end offsets, a closing CR left out) as long as no line has failed.
 */
function scanLines(
  source: LineSource,
  first: number,
  badLines: Set<number>,
  index: TaskIndex,
  maxDepth: number,
  errors: ValidationError[],
  valid: (line: string, example: Example, start: number, end: number) => void,
): void {
  const firstLine = new Map<string, number>();
  for (let n = 1, start = first; start <= source.length; n++) {
    let end = source.newline(start);
    const from = start;
    start = end + 1;
    if (end > from && source.isCR(end - 1)) end--;
    const line = source.slice(from, end);
    if (badLines.has(n) || line.trim() === "") continue;
    const { example, id } = readLine(line, n, index, maxDepth, errors);
    if (id !== undefined) {
      const first = firstLine.get(id);
      if (first !== undefined) {
        const column = columnOf(line, { code: "duplicate-id", field: "id", text: "" });
        errors.push({
          code: "duplicate-id",
          line: n,
          column,
          field: "id",
          id,
          message: `${at(n, column, "id")}id ${JSON.stringify(id)} is a duplicate: it first appeared on line ${first}; ids must be unique`,
        });
      } else firstLine.set(id, n);
    }
    if (example && errors.length === 0) valid(line, example, from, end);
  }
}

/**
 * Parse JSONL examples (one JSON object a line: id, state, labels, optional meta and split) against a task.
 * Blank lines are skipped; a UTF-8 byte-order mark is ignored; a line nested deeper than `maxDepth` is an
 * error before it is parsed. Any error means no examples.
 */
export function parseJsonl(input: string | Uint8Array, task: Task, opts: ParseOptions = {}): ParseResult {
  const examples: Example[] = [];
  const scanned = scanJsonl(input, task, opts, (line, example) =>
    examples.push(withStateJson(line, example)),
  );
  return scanned.ok ? { ok: true, examples } : scanned;
}

/**
 * A JSONL file checked as `parseJsonl` checks it (the same errors), without holding its examples: their ids and
 * splits, and `example(k)` parses the k-th one again from its line. For a file too large to hold parsed: from
 * valid UTF-8 bytes it keeps those bytes and two offsets a line, not a decoded text or the example objects.
 */
export function checkJsonl(
  input: string | Uint8Array,
  task: Task,
  opts: ParseOptions = {},
): CheckedFile | (ParseResult & { ok: false }) {
  const kept = new KeptRows();
  const scanned = scanJsonl(input, task, opts, (_line, example, start, end) => kept.add(example, start, end));
  if (!scanned.ok) return scanned;
  const { lines, index } = scanned;
  return kept.checked((start, end) => {
    const line = lines.slice(start, end);
    const { example } = readLine(line, 0, index, Number.POSITIVE_INFINITY, []);
    return example && withStateJson(line, example);
  });
}

/** Decodes and scans a file; `valid` gets each valid line while none has failed. */
function scanJsonl(
  input: string | Uint8Array,
  task: Task,
  opts: ParseOptions,
  valid: (line: string, example: Example, start: number, end: number) => void,
): { ok: true; lines: LineSource; index: TaskIndex } | (ParseResult & { ok: false }) {
  const errors: ValidationError[] = validateTask(task);
  const max = opts.maxErrors ?? DEFAULT_MAX_ERRORS;
  if (errors.length > 0) return failure(errors, max, opts.source);
  const read = linesOf(input, opts.maxBytes ?? DEFAULT_MAX_BYTES, errors);
  if (!read) return failure(errors, max, opts.source);
  const index = indexTask(task);
  const { lines, first, badLines } = read;
  scanLines(lines, first, badLines, index, opts.maxDepth ?? DEFAULT_MAX_DEPTH, errors, valid);
  if (errors.length > 0) return failure(errors, max, opts.source);
  return { ok: true, lines, index };
}
