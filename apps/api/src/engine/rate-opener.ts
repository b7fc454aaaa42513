/**
 * The transport of a run through its server's lane (rate-lane.ts). The job takes the first attempt's request
 * and tokens before it asks (a `Ticket`, found here by the call's AbortSignal, which the scorer hands to the
 * opener; no AsyncLocalStorage, whose promise hooks would slow every promise on Node 20); each further attempt
 * takes a request of its own. A 429 pauses the whole lane for its Retry-After and the request is sent again once the
 * pause is over, up to `LANE_RESENDS` times, before the scorer sees the 429 (and spends its own retries).
 */

import type { Opener } from "@decision-workbench/scorer";
import type { RateLane } from "./rate-lane.js";

/** The first attempt of a call, already paid for by the job. */
export interface Ticket {
  prepaid: boolean;
  /** Told of each 429 (the lane's pause, seconds). */
  onLimited?: (seconds: number) => void;
}

const tickets = new WeakMap<AbortSignal, Ticket>();

/**
 * A signal (never aborted) to pass as the call's `signal`: the opener's first attempt of that call finds `ticket`
 * by it and takes no request from the lane.
 */
export function ticketSignal(ticket: Ticket): AbortSignal {
  const signal = new AbortController().signal;
  tickets.set(signal, ticket);
  return signal;
}

/** Times a request refused with 429 is sent again after the lane's pause, before the scorer sees the 429. */
const LANE_RESENDS = 8;

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === "string" && first.trim() !== "" ? first.trim() : undefined;
}

/**
 * The wait a 429 asks for, in seconds, read as the scorer reads it: `retry-after-ms` (milliseconds), else
 * `Retry-After` as seconds or as an HTTP date (its distance from now, 0 when past); undefined without either.
 */
export function retryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  const after = header(headers, "retry-after");
  if (after === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after);
  if (!/[A-Za-z]{3}/.test(after)) return undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/**
 * `inner` paced by `lane`; `maxWait` caps a pause (seconds, the scorer's maxRetryWait default); a 429 without
 * Retry-After pauses `backoff` seconds, doubled per 429 in a row (the server's backoff, as its retries wait).
 */
export function laneOpener(inner: Opener, lane: RateLane, maxWait = 60, backoff = 1): Opener {
  return async (request) => {
    const ticket = request.signal && tickets.get(request.signal);
    for (let resent = 0; ; resent++) {
      if (ticket?.prepaid) ticket.prepaid = false;
      else await lane.request(request.signal);
      const res = await inner(request);
      if (res.status !== 429) {
        lane.answered();
        return res;
      }
      const seconds = lane.pause(retryAfter(res.headers), maxWait, backoff);
      ticket?.onLimited?.(seconds);
      if (resent >= LANE_RESENDS) return res;
    }
  };
}
