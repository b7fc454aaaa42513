/**
 * A small multipart/form-data reader for dataset uploads: fields `task` (JSON text or a file), `format`
 * (optional when the file's name ends in .jsonl or .csv) and `file` (or `content`).
 */

import { ApiError } from "../errors.js";

/** One part: its name, the file name when it is a file, and its bytes. */
export interface Part {
  name: string;
  filename?: string;
  data: Buffer;
}

function boundaryOf(contentType: string): string {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  if (!b)
    throw new ApiError(400, "invalid_multipart", "the multipart body has no boundary in its Content-Type");
  return b.trim();
}

/** Splits a multipart body into its parts. */
export function parseMultipart(body: Buffer, contentType: string): Part[] {
  const boundary = Buffer.from(`--${boundaryOf(contentType)}`);
  const parts: Part[] = [];
  let at = body.indexOf(boundary);
  if (at < 0)
    throw new ApiError(400, "invalid_multipart", "the multipart body does not contain its boundary");
  for (;;) {
    at += boundary.length;
    if (body.subarray(at, at + 2).toString() === "--") break;
    if (body.subarray(at, at + 2).toString() === "\r\n") at += 2;
    const headEnd = body.indexOf("\r\n\r\n", at);
    if (headEnd < 0) throw new ApiError(400, "invalid_multipart", "a multipart part has no header end");
    const head = body.subarray(at, headEnd).toString("utf8");
    const next = body.indexOf(boundary, headEnd + 4);
    if (next < 0)
      throw new ApiError(400, "invalid_multipart", "the multipart body is not closed by its boundary");
    let end = next;
    if (body[end - 2] === 13 && body[end - 1] === 10) end -= 2;
    const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? "";
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw new ApiError(400, "invalid_multipart", "a multipart part has no name");
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    parts.push({
      name,
      ...(filename !== undefined ? { filename } : {}),
      data: body.subarray(headEnd + 4, end),
    });
    at = next;
  }
  return parts;
}

/** The upload body `{task, format, content}` read from multipart parts. */
export function uploadFromParts(parts: Part[]): Record<string, unknown> {
  const byName = new Map(parts.map((p) => [p.name, p]));
  const known = ["task", "format", "file", "content"];
  for (const p of parts) {
    if (!known.includes(p.name)) {
      throw new ApiError(
        400,
        "invalid_multipart",
        `unknown form field "${p.name}"; send ${known.join(", ")}`,
      );
    }
  }
  const taskPart = byName.get("task");
  if (!taskPart)
    throw new ApiError(
      400,
      "invalid_multipart",
      'the form has no "task" field (the task definition as JSON)',
    );
  let task: unknown;
  try {
    task = JSON.parse(taskPart.data.toString("utf8"));
  } catch {
    throw new ApiError(
      400,
      "invalid_multipart",
      'the form field "task" is not JSON; send the task definition as JSON',
    );
  }
  const file = byName.get("file") ?? byName.get("content");
  if (!file)
    throw new ApiError(400, "invalid_multipart", 'the form has no "file" field (the JSONL or CSV examples)');
  let format = byName.get("format")?.data.toString("utf8").trim();
  if (!format && file.filename) {
    if (/\.jsonl$/i.test(file.filename)) format = "jsonl";
    else if (/\.csv$/i.test(file.filename)) format = "csv";
  }
  if (!format) {
    throw new ApiError(
      400,
      "invalid_multipart",
      'the upload\'s format is unknown: add a "format" field ("jsonl" or "csv") or name the file *.jsonl or *.csv',
    );
  }
  return { task, format, content: file.data.toString("utf8") };
}
