/**
 * Rate limits per server, shared by every run of this process on it: one lane per server id. A lane paces
 * requests with two token buckets (requests a minute, estimated input tokens a minute) and pauses as a whole
 * when the server answers 429, for the wait its Retry-After asks (rate-opener.ts sends the request again after
 * it, instead of burning the request's own retries).
 *
 * A bucket holds up to one second's worth of its rate (at least one) and starts full. Taking more than it holds leaves a debt that later takers wait out in turn: each
 * taker learns at once when it may go, so the lane is first come, first served without a queue of timers.
 */

import { performance } from "node:perf_hooks";
import { AbortError } from "@decision-workbench/scorer";

/** A server's limits; null: none. */
export interface RateLimits {
  requestsPerMinute: number | null;
  inputTokensPerMinute: number | null;
}

/** Longest pause a 429 causes, and the first one without a readable Retry-After when no backoff is given. */
const PAUSE_FALLBACK = { first: 1, max: 60 } as const;

/** A token bucket with debt: `take(n)` answers when the n tokens are there (ms, performance clock). */
export class DebtBucket {
  private tokens: number;
  private last: number;

  /** `perSecond` tokens a second; holds `capacity` at most. */
  constructor(
    private perSecond: number,
    private capacity: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.last = now;
  }

  /** Changes the rate and the size (tokens held are kept, cut to the new size). */
  reset(perSecond: number, capacity: number, now: number): void {
    this.refill(now);
    this.perSecond = perSecond;
    this.capacity = capacity;
    this.tokens = Math.min(this.tokens, capacity);
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.perSecond);
      this.last = now;
    }
  }

  /** Takes `n` tokens now, leaving a debt when there are fewer; returns when they are paid for (>= now). */
  take(n: number, now: number): number {
    this.refill(now);
    this.tokens -= n;
    return this.tokens >= 0 ? now : now + (-this.tokens / this.perSecond) * 1000;
  }

  /** Gives back `n` tokens (a negative n takes more), never above the size. */
  give(n: number, now: number): void {
    this.refill(now);
    this.tokens = Math.min(this.capacity, this.tokens + n);
  }

  /** Empties the bucket up to `until`: nothing refills before then (a 429 said the server's is empty). */
  drain(until: number): void {
    this.tokens = Math.min(this.tokens, 0);
    this.last = Math.max(this.last, until);
  }
}

/** Sleeps `ms`; rejects with an AbortError when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new AbortError("the wait for the rate limit was aborted"));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError("the wait for the rate limit was aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** One server's lane. */
export class RateLane {
  private requests: DebtBucket | null = null;
  private tokens: DebtBucket | null = null;
  private limits: RateLimits = { requestsPerMinute: null, inputTokensPerMinute: null };
  /** No request goes before this time (ms, performance clock): a 429's Retry-After. */
  private pausedUntil = 0;
  /** 429s in a row (reset by a request that was not refused). */
  private refusals = 0;
  /**
   * The spacing learned from 429s (ms; 0: none): the first 429 sets it to the wait it asks for, each further one
   * sent after the last pause doubles it (halves the rate), each request answered shrinks it by 1 % (the rate grows
   * slowly). Requests go at least this far apart, so the end of a pause releases them one by one.
   */
  private interval = 0;
  /** The next free slot in the learned spacing (ms, performance clock). */
  private nextSlot = 0;
  /** Pauses so far: a request waiting through one takes a new slot after it. */
  private pauses = 0;
  /** 429s the lane has seen. */
  limited = 0;
  /** Requests the lane let go. */
  sent = 0;

  constructor(
    readonly serverId: string,
    limits: RateLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.setLimits(limits);
  }

  /** The limits in force. */
  get current(): RateLimits {
    return { ...this.limits };
  }

  /** Sets the limits (a changed server): takers from now on are paced by them. */
  setLimits(limits: RateLimits): void {
    const now = this.now();
    const rpm = limits.requestsPerMinute;
    const tpm = limits.inputTokensPerMinute;
    if (rpm === this.limits.requestsPerMinute && tpm === this.limits.inputTokensPerMinute) return;
    this.limits = { requestsPerMinute: rpm, inputTokensPerMinute: tpm };
    this.requests = bucket(this.requests, rpm, 1, now);
    this.tokens = bucket(this.tokens, tpm, 1, now);
  }

  /**
   * Takes one request and `inputTokens` estimated tokens; returns when the request may go (ms, performance
   * clock; a later 429 may push it back: `ready` tells). Give the tokens back with `settle` when the reply's
   * usage says otherwise, or `cancel` when the request is not sent.
   */
  reserve(inputTokens: number): number {
    const now = this.now();
    let at = Math.max(now, this.pausedUntil);
    if (this.requests) at = Math.max(at, this.requests.take(1, now));
    if (this.tokens && inputTokens > 0) at = Math.max(at, this.tokens.take(inputTokens, now));
    return this.slot(at);
  }

  /** The first slot of the learned spacing at or after `at`, taken. */
  private slot(at: number): number {
    if (this.interval <= 0) return at;
    const s = Math.max(at, this.nextSlot);
    this.nextSlot = s + this.interval;
    return s;
  }

  /** True when nothing holds a request back: no limit, no spacing learned, no pause. */
  get free(): boolean {
    return (
      this.requests === null && this.tokens === null && this.interval <= 0 && this.now() >= this.pausedUntil
    );
  }

  /** Requests a second the lane has learned from 429s (null: none learned). */
  get learnedRate(): number | null {
    return this.interval > 0 ? 1000 / this.interval : null;
  }

  /** When a request reserved for `at` may go now: later when the lane was paused since. */
  ready(at: number): number {
    return Math.max(at, this.pausedUntil);
  }

  /**
   * Waits until a reserved request may go (pauses included); rejects with an AbortError when `signal` aborts.
   * `inputTokens` is the request's estimate: this lane took it in `reserve`; a lane shared by processes
   * (rate-shared.ts) takes it from the shared limit here.
   */
  async wait(at: number, signal?: AbortSignal, _inputTokens = 0): Promise<void> {
    let pauses = this.pauses;
    for (;;) {
      const left = this.ready(at) - this.now();
      if (left <= 0) break;
      await sleep(left, signal);
      if (this.pauses !== pauses) {
        // paused meanwhile: a new slot after the pause, not all at its end
        pauses = this.pauses;
        at = this.slot(this.ready(at));
      }
    }
    this.sent++;
  }

  /** Takes a request and waits for it (a retry inside a call, which has no tokens of its own to wait for). */
  async request(signal?: AbortSignal): Promise<void> {
    await this.wait(this.reserve(0), signal);
  }

  /** A reserved request that was not sent: its request and tokens go back. */
  cancel(inputTokens: number): void {
    const now = this.now();
    this.requests?.give(1, now);
    if (inputTokens > 0) this.tokens?.give(inputTokens, now);
  }

  /** The reply's usage corrects the estimate: `used - estimated` more tokens are taken (or given back). */
  settle(estimated: number, used: number | undefined): void {
    if (used === undefined || !Number.isFinite(used) || !this.tokens) return;
    this.tokens.give(estimated - used, this.now());
  }

  /** A request was not refused: the next 429 pauses for the first fallback wait again. */
  answered(): void {
    this.refusals = 0;
    if (this.interval > 0) {
      this.interval /= 1.01;
      if (this.interval < 0.1) this.interval = 0;
    }
  }

  /**
   * The server answered 429: the whole lane pauses for `seconds` (its Retry-After), or without one for a wait
   * doubled per 429 in a row (`first`, the server's backoff, then twice it, ... up to `maxSeconds`); requests
   * reserved meanwhile wait it out. Returns the pause in seconds.
   */
  pause(
    seconds: number | undefined,
    maxSeconds: number = PAUSE_FALLBACK.max,
    first: number = PAUSE_FALLBACK.first,
  ): number {
    this.limited++;
    this.refusals++;
    const wait = Math.min(maxSeconds, seconds ?? first * 2 ** Math.min(this.refusals - 1, 10));
    const now = this.now();
    // a 429 to a request sent before the last pause ended says nothing new about the rate
    const fresh = now >= this.pausedUntil;
    if (fresh)
      this.interval = this.interval > 0 ? Math.min(this.interval * 2, 60_000) : Math.max(wait * 1000, 1);
    const until = now + wait * 1000;
    if (until > this.pausedUntil) this.pausedUntil = until;
    this.nextSlot = Math.max(this.nextSlot, this.pausedUntil);
    this.pauses++;
    this.requests?.drain(this.pausedUntil);
    return wait;
  }

  /** Seconds until a request reserved for `at` may go (0 when it may go now). */
  secondsLeft(at: number): number {
    return Math.max(0, (this.ready(at) - this.now()) / 1000);
  }
}

/** A bucket for a per-minute limit (sized one second's worth, at least `least`), or null without a limit. */
function bucket(
  old: DebtBucket | null,
  perMinute: number | null,
  least: number,
  now: number,
): DebtBucket | null {
  if (perMinute === null) return null;
  const perSecond = perMinute / 60;
  const capacity = Math.max(least, perSecond);
  if (old) {
    old.reset(perSecond, capacity, now);
    return old;
  }
  return new DebtBucket(perSecond, capacity, now);
}

/** The lanes of one process, one per server id. */
export class RateLanes {
  private readonly lanes = new Map<string, RateLane>();

  /** The server's lane, made on first use; its limits are set to `limits`. */
  lane(serverId: string, limits: RateLimits): RateLane {
    let lane = this.lanes.get(serverId);
    if (!lane) {
      lane = this.make(serverId, limits);
      this.lanes.set(serverId, lane);
    } else lane.setLimits(limits);
    return lane;
  }

  /** Makes a server's lane (a subclass makes its own kind). */
  protected make(serverId: string, limits: RateLimits): RateLane {
    return new RateLane(serverId, limits);
  }

  /** The server's lane when one was made. */
  get(serverId: string): RateLane | undefined {
    return this.lanes.get(serverId);
  }

  /** A server's limits changed: its lane (if any) paces by the new ones from now on. */
  update(serverId: string, limits: RateLimits): void {
    this.lanes.get(serverId)?.setLimits(limits);
  }

  /** A deleted server's lane goes. */
  remove(serverId: string): void {
    this.lanes.delete(serverId);
  }
}
