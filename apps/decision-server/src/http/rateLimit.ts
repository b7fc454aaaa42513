/** Rate limits: a token bucket per server, answering 429 with Retry-After beyond it. */

import { performance } from "node:perf_hooks";

/** A rate limit: `requests` per second or per minute, with bursts of up to `burst` requests. */
export interface RateLimit {
  requests: number;
  per: "second" | "minute";
  /** The bucket's size: requests admitted at once after a quiet spell. Default one second's worth (at least 1). */
  burst?: number;
}

/** A bad rate limit: the message says what is wrong and what is right. */
export class RateLimitError extends Error {
  override name = "RateLimitError";
}

const UNITS: Record<string, RateLimit["per"]> = {
  s: "second",
  sec: "second",
  second: "second",
  m: "minute",
  min: "minute",
  minute: "minute",
};

/** Reads `N/s` or `N/m` (also `N/sec`, `N/second`, `N/min`, `N/minute`); N a positive number. */
export function parseRateLimit(text: string): RateLimit {
  const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*([a-z]+)\s*$/i.exec(text);
  const per = match ? UNITS[match[2].toLowerCase()] : undefined;
  const requests = match ? Number(match[1]) : Number.NaN;
  if (!match || !per || !(requests > 0)) {
    throw new RateLimitError(
      `a rate limit is N/s or N/m (N requests per second or per minute, N > 0), such as 50/s or 1200/m; got '${text}'`,
    );
  }
  return { requests, per };
}

/** Checks a RateLimit object (or reads its text form). */
export function checkRateLimit(limit: RateLimit | string): Required<RateLimit> {
  const read = typeof limit === "string" ? parseRateLimit(limit) : limit;
  if (
    typeof read !== "object" ||
    read === null ||
    !(typeof read.requests === "number" && read.requests > 0 && Number.isFinite(read.requests)) ||
    (read.per !== "second" && read.per !== "minute")
  ) {
    throw new RateLimitError(
      `rateLimit must be {requests: N > 0, per: "second" | "minute", burst?: B >= 1} or text such as "50/s"; got ${JSON.stringify(limit)}`,
    );
  }
  const perSecond = read.requests / (read.per === "second" ? 1 : 60);
  const burst = read.burst ?? Math.max(1, perSecond);
  if (!(typeof burst === "number" && burst >= 1 && Number.isFinite(burst))) {
    throw new RateLimitError(
      `rateLimit.burst must be a number of requests of at least 1, got ${JSON.stringify(burst)}`,
    );
  }
  return { requests: read.requests, per: read.per, burst };
}

/**
 * A token bucket: it holds up to `capacity` tokens, starts full and refills at `rate` tokens per second;
 * each admitted request takes one. Refused requests take none.
 */
export class TokenBucket {
  #tokens: number;
  #last: number;

  constructor(
    readonly rate: number,
    readonly capacity: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#tokens = capacity;
    this.#last = now();
  }

  /** Takes a token: 0 when one was there, else the seconds until one will be (the request is refused). */
  take(): number {
    this.#refill();
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return (1 - this.#tokens) / this.rate;
  }

  /** Whole tokens left now. */
  get remaining(): number {
    this.#refill();
    return Math.floor(this.#tokens);
  }

  #refill(): void {
    const t = this.now();
    this.#tokens = Math.min(this.capacity, this.#tokens + ((t - this.#last) / 1000) * this.rate);
    this.#last = t;
  }
}

/** A limiter over a bucket: what a refused request is answered with. */
export interface Limiter {
  /** undefined: admitted; else the 429's headers and detail. */
  admit(): { headers: Record<string, string>; detail: string } | undefined;
  /** Headers every admitted reply carries (limit and remaining requests). */
  headers(): Record<string, string>;
}

/** A limiter for a checked rate limit. */
export function limiter(limit: Required<RateLimit>, now?: () => number): Limiter {
  const perSecond = limit.requests / (limit.per === "second" ? 1 : 60);
  const bucket = new TokenBucket(perSecond, limit.burst, now);
  const said = `${limit.requests} request${limit.requests === 1 ? "" : "s"} per ${limit.per}`;
  return {
    admit() {
      const wait = bucket.take();
      if (wait === 0) return undefined;
      const ms = Math.max(1, Math.ceil(wait * 1000));
      return {
        headers: {
          "retry-after": String(Math.ceil(ms / 1000)),
          "retry-after-ms": String(ms),
          "x-ratelimit-limit-requests": String(limit.requests),
          "x-ratelimit-remaining-requests": "0",
        },
        detail: `rate limit exceeded: at most ${said} (bursts of ${limit.burst}); retry after ${ms / 1000} s`,
      };
    },
    headers() {
      return {
        "x-ratelimit-limit-requests": String(limit.requests),
        "x-ratelimit-remaining-requests": String(bucket.remaining),
      };
    },
  };
}
