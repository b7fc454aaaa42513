import type { OpenerResponse } from "./types.js";

/** `x-acme-request-id`, `x-amzn-requestid`: a vendor's own request id header. */
const VENDOR_ID = /^x-[a-z0-9-]*request-?id$/;

/**
 * The reply's request id: `x-request-id`, else a vendor's `x-<vendor>-request-id` (or `-requestid`), else
 * `request-id`, else `cf-ray`; the first value of a repeated header, trimmed and cut to 200 characters.
 * Undefined when the reply names none.
 */
export function requestIdOf(headers: OpenerResponse["headers"] | undefined): string | undefined {
  if (!headers) return undefined;
  let id = headerValue(headers["x-request-id"]);
  if (id === undefined) {
    for (const name in headers) {
      const lower = name.toLowerCase();
      if (lower === "x-request-id" || VENDOR_ID.test(lower)) {
        id = headerValue(headers[name]);
        if (id !== undefined) break;
      }
    }
  }
  if (id === undefined) id = headerValue(headers["request-id"]) ?? headerValue(headers["cf-ray"]);
  return id;
}

/** The first value of a header, trimmed; undefined when absent or empty. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== "string") return undefined;
  const trimmed = first.trim();
  if (trimmed === "") return undefined;
  return trimmed.length > 200 ? trimmed.slice(0, 200) : trimmed;
}
