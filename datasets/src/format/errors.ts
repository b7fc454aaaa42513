/** What kind of problem a validation error reports. */
export type ErrorCode =
  | "file-too-large"
  | "invalid-utf8"
  | "invalid-json"
  | "too-deep"
  | "not-an-object"
  | "unknown-field"
  | "missing-id"
  | "invalid-id"
  | "duplicate-id"
  | "missing-state"
  | "invalid-state"
  | "empty-state"
  | "missing-labels"
  | "invalid-labels"
  | "unknown-item"
  | "label-not-option"
  | "multi-not-list"
  | "invalid-label"
  | "invalid-split"
  | "invalid-meta"
  | "csv-header"
  | "csv-ragged-row"
  | "csv-quote"
  | "invalid-task";

/** One problem found in a dataset file or example list, with where it is. */
export interface ValidationError {
  code: ErrorCode;
  /** The whole message, location first: `line 4312, column 27, "labels.is_spam": "yse" is not an option ...`. */
  message: string;
  /** 1-based line of the file (for CSV: the line where the record starts). */
  line?: number;
  /** 1-based column: the character position in a JSONL line, or the column number in a CSV file. */
  column?: number;
  /** CSV only: the header name of the column. */
  columnName?: string;
  /** Where in the example (or task): "labels.is_spam", "state", "items[2].options". */
  field?: string;
  /** 0-based position in the example list (validateDataset). */
  index?: number;
  /** The example's id when known. */
  id?: string;
}

/** The result of parsing a file: every example, or (when anything is wrong) no examples and the errors. */
export type ParseResult =
  | { ok: true; examples: import("../types.js").Example[] }
  | {
      ok: false;
      /** The first `maxErrors` errors, in file order. */
      errors: ValidationError[];
      /** How many errors there are in all (errors.length plus the ones left off). */
      errorCount: number;
      /** A summary for a person: the count, the listed errors one a line, and how many more. */
      message: string;
    };

/** Options of parseJsonl and parseCsv. */
export interface ParseOptions {
  /** How many errors to list (default 20); the rest are counted. */
  maxErrors?: number;
  /** Largest accepted file in bytes (default 100 MiB). */
  maxBytes?: number;
  /** JSONL: the deepest nesting of objects and lists on a line, the example object being level 1 (default 64). */
  maxDepth?: number;
  /** The file's name, used in the summary message. */
  source?: string;
}

/** The default size limit of an imported file: 100 MiB. */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
/** The default number of errors listed. */
export const DEFAULT_MAX_ERRORS = 20;

/** A problem inside one example, before a location is attached. */
export interface Issue {
  code: ErrorCode;
  /** Path in the example: "labels.is_spam", "labels.properties[1]", "state", "" for the whole example. */
  field: string;
  /** True when the column should point at the key rather than the value (unknown keys). */
  atKey?: boolean;
  text: string;
}

/** The failed ParseResult for a list of errors: sorted by line, the first `max` listed, all counted. */
export function failure(
  all: ValidationError[],
  max: number,
  source: string | undefined,
): ParseResult & { ok: false } {
  const sorted = all
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.line ?? 0) - (b.e.line ?? 0) || a.i - b.i)
    .map((x) => x.e);
  const shown = sorted.slice(0, Math.max(1, max));
  const count = sorted.length;
  const what = source ? `${source}: ` : "";
  const head = `${what}${count} ${count === 1 ? "error" : "errors"}, nothing imported${
    count > shown.length ? `; the first ${shown.length}:` : ":"
  }`;
  const lines = shown.map((e) => `  ${e.message}`);
  if (count > shown.length) lines.push(`  ... and ${count - shown.length} more`);
  return { ok: false, errors: shown, errorCount: count, message: [head, ...lines].join("\n") };
}

/** "1.5 MB": a byte count for a message. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
