/**
 * The limits of a dataset upload: one size for the whole request (refused from its Content-Length before the
 * body is read, or when a body without one runs past it) and one nesting depth. API.md states both.
 */

import { DEFAULT_MAX_DEPTH } from "@decision-workbench/datasets";
import { ApiError } from "../errors.js";

/** Largest upload: the request body in bytes (JSON or multipart), so also the largest file. 160 MiB. */
export const UPLOAD_LIMIT = 160 * 1024 * 1024;

/** Deepest nesting of objects and lists on a JSONL line (the example object is level 1) and in the task. */
export const UPLOAD_MAX_DEPTH = DEFAULT_MAX_DEPTH;

/**
 * Most uploads received at once: each holds a thread and up to UPLOAD_LIMIT bytes, so without a bound a client
 * holding many uploads open (a byte sent each) would run the process out of memory. One per core of the machine
 * this was sized on; more wait their turn with a 503.
 */
export const UPLOADS_AT_ONCE = 2;

/** 503 too_many_uploads: UPLOADS_AT_ONCE are being received. */
export function tooManyUploads(): ApiError {
  return new ApiError(
    503,
    "too_many_uploads",
    `${UPLOADS_AT_ONCE} uploads are being received already; send this one again when one of them has finished (Retry-After says when to try)`,
  );
}

/** "160 MiB (167,772,160 bytes)". */
export const UPLOAD_LIMIT_TEXT = `${UPLOAD_LIMIT / 2 ** 20} MiB (${UPLOAD_LIMIT.toLocaleString("en-US")} bytes)`;

/** 413 body_too_large: the upload is `bytes` long (when known), over UPLOAD_LIMIT. */
export function uploadTooLarge(bytes?: number): ApiError {
  const size = bytes === undefined ? "" : ` (${bytes.toLocaleString("en-US")} bytes)`;
  return new ApiError(
    413,
    "body_too_large",
    `the upload${size} is over the limit of ${UPLOAD_LIMIT_TEXT}; split the dataset into smaller files`,
  );
}
