/**
 * What an upload sent, read on the upload thread: the JSON body `{task, format, content}` or the multipart
 * fields, decoded, parsed and checked against the route's body schema with the same messages as every other
 * route's body. Bytes that are not UTF-8 inside `content` are kept (see decodeUtf8Escaped) so the dataset
 * parser can name their line.
 */

import { decodeUtf8Escaped, encodeUtf8Escaped, hasEscapedBytes } from "@decision-workbench/datasets";
import type { ErrorObject } from "ajv";
import { ApiError, badRequest, describeSchemaError, emptyJsonBody, invalidJson } from "../errors.js";
import { OpenObject } from "../shapes/common.js";
import { validators } from "../validators.js";
import { UPLOAD_MAX_DEPTH } from "./upload-limits.js";

/** The JSON body of POST /api/datasets (multipart fields are read into the same shape). */
export const uploadSchema = {
  type: "object",
  properties: {
    task: OpenObject("the task definition (name, description, provenance, items)"),
    format: { type: "string", enum: ["jsonl", "csv"] },
    content: { type: "string", description: "the file's text" },
  },
  required: ["task", "format", "content"],
  additionalProperties: false,
} as const;

/** The form fields an upload may have. */
export const FORM_FIELDS = ["task", "format", "file", "content"] as const;

/** The bytes received for one form field (or the JSON body), and the field's file name if any. */
export interface Received {
  bytes: Uint8Array;
  filename?: string;
}

/** The request as the upload thread receives it: the JSON body, or the form fields by name. */
export type ReceivedUpload =
  | { kind: "json"; body: Received }
  | { kind: "form"; fields: Map<string, Received> };

/** The received bytes, let go of by `r` (so they can be collected as soon as the caller is done with them). */
function take(r: Received): Uint8Array {
  const bytes = r.bytes;
  r.bytes = new Uint8Array();
  return bytes;
}

/** An upload read and checked: the file stays bytes when it must be checked as UTF-8. */
export interface ReadUpload {
  task: unknown;
  format: "jsonl" | "csv";
  content: string | Uint8Array;
}

// The app's own body validator (validators.ts), so a message reads the same as on every other route.
const validate = validators().body.compile(uploadSchema);

function checkSchema(body: unknown): void {
  if (validate(body)) return;
  const errors = (validate.errors ?? []) as ErrorObject[];
  throw badRequest(errors.map((e) => describeSchemaError(e, "body")).join("; "));
}

/**
 * Refuses values nested deeper than UPLOAD_MAX_DEPTH levels (they would overflow the stack of whatever recurses
 * over them later) and `__proto__` keys; with `utf8`, also text holding bytes that were not UTF-8 (escaped by
 * decodeUtf8Escaped). Iterative: no depth can overflow this check itself.
 */
function checkShape(value: unknown, where: string, utf8 = false): void {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 1 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number };
    if (utf8 && typeof v === "string" && hasEscapedBytes(v))
      throw badRequest(`${where} holds bytes that are not UTF-8; send it as UTF-8`);
    if (v === null || typeof v !== "object") continue;
    if (depth > UPLOAD_MAX_DEPTH) {
      throw badRequest(
        `${where} nests objects and lists more than ${UPLOAD_MAX_DEPTH} levels deep; a task needs only a few (items, options)`,
      );
    }
    for (const [k, child] of Object.entries(v)) {
      if (k === "__proto__") throw badRequest(`${where} has a "__proto__" key, which is refused; remove it`);
      if (utf8 && hasEscapedBytes(k))
        throw badRequest(`${where} holds bytes that are not UTF-8; send it as UTF-8`);
      stack.push({ v: child, depth: depth + 1 });
    }
  }
}

/** The body's text; bytes that are not UTF-8 are kept, escaped (see decodeUtf8Escaped). */
function bodyText(body: Received): { text: string; escaped: boolean } {
  const bytes = take(body);
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), escaped: false };
  } catch {
    return { text: decodeUtf8Escaped(bytes), escaped: true };
  }
}

/** The parsed JSON body (its bytes and text are not held past this call). */
function parseBody(received: Received): { body: unknown; escaped: boolean } {
  const { text, escaped } = bodyText(received);
  if (text.length === 0) throw emptyJsonBody();
  try {
    return { body: JSON.parse(text), escaped };
  } catch (err) {
    throw invalidJson((err as Error).message);
  }
}

function readJson(received: Received): ReadUpload {
  const { body, escaped } = parseBody(received);
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    // Bytes that are not UTF-8 are refused outside the file; inside it the parser finds them by line.
    for (const [k, v] of Object.entries(body)) checkShape(v, `body.${k}`, escaped && k !== "content");
  }
  checkSchema(body);
  const { task, format, content } = body as { task: unknown; format: "jsonl" | "csv"; content: string };
  if (content.length === 0) throw badRequest("body.content is empty; send the JSONL or CSV text");
  // A byte that is not UTF-8 inside content goes back to the parser as the byte it was, to be found by line.
  return {
    task,
    format,
    content: escaped && hasEscapedBytes(content) ? encodeUtf8Escaped(content) : content,
  };
}

function formError(message: string): ApiError {
  return new ApiError(400, "invalid_multipart", message);
}

function readForm(fields: Map<string, Received>): ReadUpload {
  const taskField = fields.get("task");
  if (!taskField) throw formError('the form has no "task" field (the task definition as JSON)');
  let task: unknown;
  try {
    task = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(take(taskField)));
  } catch {
    throw formError('the form field "task" is not JSON in UTF-8; send the task definition as JSON');
  }
  checkShape(task, "task");
  const file = fields.get("file") ?? fields.get("content");
  if (!file) throw formError('the form has no "file" field (the JSONL or CSV examples)');
  const formatField = fields.get("format");
  let format = formatField ? new TextDecoder().decode(take(formatField)).trim() : undefined;
  if (!format && file.filename) {
    if (/\.jsonl$/i.test(file.filename)) format = "jsonl";
    else if (/\.csv$/i.test(file.filename)) format = "csv";
  }
  if (!format) {
    throw formError(
      'the upload\'s format is unknown: add a "format" field ("jsonl" or "csv") or name the file *.jsonl or *.csv',
    );
  }
  checkSchema({ task, format, content: "" });
  const bytes = take(file);
  if (bytes.length === 0) throw badRequest('the form field "file" is empty; send the JSONL or CSV file');
  return { task, format: format as ReadUpload["format"], content: bytes };
}

/**
 * The task, format and file of an upload; an ApiError (400) says what is wrong with the request. The received
 * bytes are taken (let go of by `received`).
 */
export function readUpload(received: ReceivedUpload): ReadUpload {
  return received.kind === "json" ? readJson(received.body) : readForm(received.fields);
}
