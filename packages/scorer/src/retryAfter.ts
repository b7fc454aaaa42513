import { headerValue } from "./requestId.js";
import type { OpenerResponse } from "./types.js";

/**
 * The wait in seconds a 429 or 503 asks for: `retry-after-ms` (milliseconds), else `Retry-After` as
 * non-negative seconds or as an HTTP date (its distance from `now`, 0 when past). Undefined when neither
 * header is there or readable.
 */
export function retryAfterSeconds(
  headers: OpenerResponse["headers"] | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headerValue(headers["retry-after-ms"]);
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  const after = headerValue(headers["retry-after"]);
  if (after === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after);
  // An HTTP date names its month ("Wed, 21 Oct 2026 07:28:00 GMT"); "-5" or "1e3" is no date.
  if (!/[A-Za-z]{3}/.test(after)) return undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}
