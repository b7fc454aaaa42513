import { createHash } from "node:crypto";

/**
 * `decision|{endpoint}|{model}`, plus `|x:` and 16 hex digits of the SHA-256 of extra_body when it is non-empty
 * after removing `options.return_reasoning` (and an `options` object that this leaves empty). extra_body is
 * serialised like Python's `json.dumps(obj, sort_keys=True, ensure_ascii=False)` and hashed as UTF-8, as the
 * reference client of releases 0.7.1 and 0.8.0 does, so fingerprints written by either compare equal.
 */
export function fingerprint(endpoint: string, model: string, extraBody?: Record<string, unknown>): string {
  const base = `decision|${endpoint}|${model}`;
  const kept = withoutReasoningFlag(extraBody);
  if (!kept || Object.keys(kept).length === 0) return base;
  const digest = createHash("sha256").update(pythonJson(kept), "utf8").digest("hex");
  return `${base}|x:${digest.slice(0, 16)}`;
}

function withoutReasoningFlag(extraBody?: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!extraBody) return undefined;
  const options = extraBody.options;
  if (
    typeof options !== "object" ||
    options === null ||
    Array.isArray(options) ||
    !("return_reasoning" in options)
  ) {
    return extraBody;
  }
  const { return_reasoning: _, ...rest } = options as Record<string, unknown>;
  const copy: Record<string, unknown> = { ...extraBody };
  if (Object.keys(rest).length === 0) delete copy.options;
  else copy.options = rest;
  return copy;
}

/**
 * JSON text exactly as Python's json.dumps(value, sort_keys=True, ensure_ascii=False) writes it: ", " and ": ",
 * keys sorted by code point, only `"`, `\\` and the control characters below U+0020 escaped, everything else
 * (non-ASCII text, U+007F, U+2028) written as itself, so that its UTF-8 is what the reference client hashes.
 */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") return pythonNumber(value);
  if (typeof value === "string") return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort(byCodePoint)
      .map((k) => `${pythonString(k)}: ${pythonJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(", ")}}`;
  }
  return pythonString(String(value));
}

function byCodePoint(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Python's repr of a float (scientific below 1e-4 and from 1e16), ints without a fraction. */
function pythonNumber(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return x.toFixed(0);
  const abs = Math.abs(x);
  // In this range both languages write the shortest round-trip digits without an exponent.
  if (abs >= 1e-4 && abs < 1e16) return String(x);
  const [mantissa, exponent] = x.toExponential().split("e");
  const e = Number(exponent);
  const sign = e < 0 ? "-" : "+";
  const digits = String(Math.abs(e)).padStart(2, "0");
  return `${mantissa}e${sign}${digits}`;
}

function pythonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}
