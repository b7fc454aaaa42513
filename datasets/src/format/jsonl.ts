import { validateTask } from "../task.js";
import type { Example, Task } from "../types.js";
import { checkExample, indexTask } from "./check.js";
import { DEFAULT_MAX_DEPTH, tooDeepAt } from "./depth.js";
import type { Issue, ParseOptions, ParseResult, ValidationError } from "./errors.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ERRORS, failure, formatBytes } from "./errors.js";
import { JsonSyntaxError, parseLocated } from "./json-located.js";
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

/**
 * Parse JSONL examples (one JSON object a line: id, state, labels, optional meta and split) against a task.
 * Blank lines are skipped; a UTF-8 byte-order mark is ignored; a line nested deeper than `maxDepth` is an
 * error before it is parsed. Any error means no examples.
 */
export function parseJsonl(input: string | Uint8Array, task: Task, opts: ParseOptions = {}): ParseResult {
  const errors: ValidationError[] = validateTask(task);
  const max = opts.maxErrors ?? DEFAULT_MAX_ERRORS;
  if (errors.length > 0) return failure(errors, max, opts.source);
  const decoded = decodeInput(input, opts.maxBytes ?? DEFAULT_MAX_BYTES, errors);
  if (!decoded) return failure(errors, max, opts.source);
  const index = indexTask(task);
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const text = decoded.text;
  // the bytes are let go once decoded, and the lines are read one at a time (no array of every line)
  input = "";
  const firstLine = new Map<string, number>();
  const examples: Example[] = [];
  for (let n = 1, start = 0; start <= text.length; n++) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const raw = text.slice(start, end);
    start = end + 1;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (decoded.badLines.has(n) || line.trim() === "") continue;
    const deep = tooDeepAt(line, maxDepth);
    if (deep >= 0) {
      errors.push({
        code: "too-deep",
        line: n,
        column: deep + 1,
        message: `${at(n, deep + 1, undefined)}objects and lists nest more than ${maxDepth} levels deep here (the example object is level 1); flatten the state or meta to at most ${maxDepth} levels`,
      });
      continue;
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
      continue;
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
    if (example && errors.length === 0) {
      const stateJson = lineStateJson(line, example.state);
      if (stateJson !== undefined) example.stateJson = stateJson;
      examples.push(example);
    }
  }
  if (errors.length > 0) return failure(errors, max, opts.source);
  return { ok: true, examples };
}
