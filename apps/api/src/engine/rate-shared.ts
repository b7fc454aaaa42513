/**
 * Rate limits shared by worker processes (on one machine or several) through the PostgreSQL database they share:
 * one row of `rate_lanes` per server (storage/postgres/pg-migrations.ts, version 5). Each request takes its
 * slot with ONE atomic statement on the database's clock (`clock_timestamp()`), so the machines' clocks do not
 * matter: a GCRA ("theoretical arrival time") per limit, requests a minute and input tokens a minute (a request's
 * tokens cost tokens times the token interval), each allowing a burst of one second's worth (at least one) as the
 * local lane does. A 429 anywhere pushes the row's `paused_until`, which every take waits for.
 *
 * A `SharedLane` is a `RateLane` first: the local lane paces this process's requests (its pauses, its spacing
 * learned from 429s), then the shared row paces all of them together, requests and input tokens. Times from the database come back as distances from its
 * clock and are laid on this process's performance clock when they arrive.
 */

import { performance } from "node:perf_hooks";
import { AbortError } from "@decision-workbench/scorer";
import pg from "pg";
import { RateLane, RateLanes, type RateLimits, sleep } from "./rate-lane.js";

/** The statements of a lane on the shared database, and where their failures go. */
export interface SharedDb {
  query(sql: string, params: unknown[]): Promise<{ rows: Record<string, number>[]; rowCount: number | null }>;
  report(err: Error): void;
}

/** The database's clock in seconds since the epoch. */
const NOW = "(SELECT extract(epoch FROM clock_timestamp())::float8 AS t) AS n";

/** A server's row, made on its first use (every column starts long ago: no debt, no pause). */
const MAKE = "INSERT INTO rate_lanes (server_id) VALUES ($1) ON CONFLICT DO NOTHING";

/**
 * Takes a request ($2: its interval in seconds, 0 without a limit or for none) and its tokens ($4: their cost in
 * seconds); $3 and $5 are the bursts in seconds. Returns the wait before the slot and the pause left, in seconds.
 */
const TAKE = `UPDATE rate_lanes AS l SET (taken_at, request_tat, token_tat) = (SELECT n.t,
    CASE WHEN $2::float8 > 0 THEN greatest(l.request_tat, n.t) + $2::float8 ELSE l.request_tat END,
    CASE WHEN $4::float8 > 0 THEN greatest(l.token_tat, n.t) + $4::float8 ELSE l.token_tat END FROM ${NOW})
  WHERE l.server_id = $1
  RETURNING greatest(l.paused_until,
      CASE WHEN $2::float8 > 0 THEN l.request_tat - $3::float8 ELSE 0 END,
      CASE WHEN $4::float8 > 0 THEN l.token_tat - $5::float8 ELSE 0 END) - l.taken_at AS wait,
    l.paused_until - l.taken_at AS paused`;

/** Pauses the server for $2 seconds and empties its requests bucket until then ($3: the burst, 0 without). */
const PAUSE = `UPDATE rate_lanes AS l SET (paused_until, request_tat) = (SELECT p.until,
    CASE WHEN $3::float8 > 0 THEN greatest(l.request_tat, p.until + $3::float8) ELSE l.request_tat END
    FROM (SELECT greatest(l.paused_until, extract(epoch FROM clock_timestamp())::float8 + $2::float8) AS until) AS p)
  WHERE l.server_id = $1`;

/** Gives back $2 seconds of requests and takes $3 seconds of tokens (negative: gives back), never past full. */
const ADJUST = `UPDATE rate_lanes AS l SET (request_tat, token_tat) = (SELECT
    CASE WHEN $2::float8 > 0 THEN greatest(l.request_tat - $2::float8, n.t) ELSE l.request_tat END,
    CASE WHEN $3::float8 <> 0 THEN greatest(greatest(l.token_tat, n.t) + $3::float8, n.t) ELSE l.token_tat END
    FROM ${NOW})
  WHERE l.server_id = $1`;

/** The pause left on the server, in seconds (no row: none). */
const PEEK =
  "SELECT paused_until - extract(epoch FROM clock_timestamp())::float8 AS paused FROM rate_lanes WHERE server_id = $1";

/** How often a lane without limits looks for a shared pause (ms). */
const PEEK_MS = 1000;

function aborted(): AbortError {
  return new AbortError("the wait for the rate limit was aborted");
}

/** `p`, or an AbortError as soon as `signal` aborts. */
function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/** A server's lane shared through the database: the local lane, then the server's row. */
export class SharedLane extends RateLane {
  /** End of the shared pause the lane knows of (ms, performance clock). */
  private sharedPausedUntil = 0;
  /** The latest shared slot handed out, and the takers sleeping until theirs. */
  private lastSlot = 0;
  private sleeping = 0;
  /** Waits that rejected: each gave its shared slot back, so the `cancel` that follows gives back the local one. */
  private rejected = 0;
  private peekedAt = Number.NEGATIVE_INFINITY;
  private peeking: Promise<void> | null = null;
  private readonly writes = new Set<Promise<unknown>>();

  constructor(
    serverId: string,
    limits: RateLimits,
    private readonly db: SharedDb,
    private readonly clock: () => number = () => performance.now(),
  ) {
    super(serverId, limits, clock);
  }

  /**
   * Takes one request from the local lane; the tokens are taken from the shared row alone, by `wait`: a local
   * token debt waited out first would be waited out again in the row.
   */
  override reserve(_inputTokens: number): number {
    return super.reserve(0);
  }

  /** True when the server has no limits, no spacing is learned and no pause is in force, here or shared. */
  override get free(): boolean {
    if (!super.free) return false;
    void this.peek();
    return this.clock() >= this.sharedPausedUntil;
  }

  /**
   * Waits for the local lane, then takes the shared slot (one request and `inputTokens`) and waits for it.
   * Rejects with an AbortError when `signal` aborts; the shared slot is given back then.
   */
  override async wait(at: number, signal?: AbortSignal, inputTokens = 0): Promise<void> {
    try {
      await super.wait(at, signal);
    } catch (err) {
      this.rejected++;
      throw err;
    }
    try {
      await this.sharedWait(signal, inputTokens);
    } catch (err) {
      this.rejected++;
      this.sent--;
      throw err;
    }
  }

  /** Takes a request, here and shared, and waits for it (a resend, which has no tokens of its own). */
  override async request(signal?: AbortSignal): Promise<void> {
    await super.wait(this.reserve(0), signal);
    try {
      await this.sharedWait(signal, 0);
    } catch (err) {
      this.sent--;
      throw err;
    }
  }

  /** A reserved request that was not sent: its request and tokens go back, here and (once taken) shared. */
  override cancel(inputTokens: number): void {
    super.cancel(0);
    if (this.rejected > 0) this.rejected--;
    else if (this.hasLimits()) this.giveBack(inputTokens);
  }

  /** The reply's usage corrects the estimate in the shared token debt. */
  override settle(estimated: number, used: number | undefined): void {
    const token = this.intervals().token;
    if (used === undefined || !Number.isFinite(used) || token <= 0 || used === estimated) return;
    this.write(ADJUST, [0, (used - estimated) * token], "settled");
  }

  /** The local pause, written to the server's row for every process (a failed write is reported, not thrown). */
  override pause(seconds: number | undefined, maxSeconds?: number, first?: number): number {
    const wait = super.pause(seconds, maxSeconds, first);
    this.sharedPausedUntil = Math.max(this.sharedPausedUntil, this.clock() + wait * 1000);
    this.write(PAUSE, [wait, this.intervals().requestBurst], "paused");
    return wait;
  }

  /** Seconds until a request reserved for `at` may go: the local wait, or the shared one the lane knows of. */
  override secondsLeft(at: number): number {
    const shared = Math.max(this.sharedPausedUntil, this.sleeping > 0 ? this.lastSlot : 0);
    return Math.max(super.secondsLeft(at), (shared - this.clock()) / 1000);
  }

  /** Resolves once the lane's writes (pauses, give-backs, settles) are done. */
  async idle(): Promise<void> {
    while (this.writes.size) await Promise.all(this.writes);
  }

  private hasLimits(): boolean {
    const { requestsPerMinute, inputTokensPerMinute } = this.current;
    return requestsPerMinute !== null || inputTokensPerMinute !== null;
  }

  /** Seconds a request and a token cost, and the bursts (one second's worth, at least one); 0: no limit. */
  private intervals(): { request: number; requestBurst: number; token: number; tokenBurst: number } {
    const { requestsPerMinute: rpm, inputTokensPerMinute: tpm } = this.current;
    const request = rpm !== null && rpm > 0 ? 60 / rpm : 0;
    const token = tpm !== null && tpm > 0 ? 60 / tpm : 0;
    return {
      request,
      requestBurst: request > 0 ? Math.max(request, 1) : 0,
      token,
      tokenBurst: token > 0 ? Math.max(token, 1) : 0,
    };
  }

  /** Waits for the shared limits (or, without any, for a shared pause). The database down, the local pace holds. */
  private async sharedWait(signal: AbortSignal | undefined, tokens: number): Promise<void> {
    if (!this.hasLimits()) {
      await abortable(this.peek(), signal);
      const left = this.sharedPausedUntil - this.clock();
      if (left > 0) await sleep(Math.ceil(left), signal);
      return;
    }
    let cost = tokens;
    for (;;) {
      const taken = this.take(cost);
      let slot: number | null;
      try {
        slot = await abortable(taken, signal);
      } catch (err) {
        void taken.then((s) => s !== null && this.giveBack(tokens));
        throw err;
      }
      if (slot === null) return;
      this.lastSlot = Math.max(this.lastSlot, slot);
      this.sleeping++;
      try {
        const left = slot - this.clock();
        if (left > 0) await sleep(Math.ceil(left), signal);
      } catch (err) {
        this.giveBack(tokens);
        throw err;
      } finally {
        this.sleeping--;
      }
      if (this.clock() >= this.sharedPausedUntil) return;
      cost = 0; // paused since the slot was taken: a new slot after the pause, the tokens are taken already
    }
  }

  /** Takes a request and `tokens` from the row; the slot (ms, performance clock), or null when it failed. */
  private async take(tokens: number): Promise<number | null> {
    const i = this.intervals();
    const params = [i.request, i.requestBurst, tokens > 0 ? tokens * i.token : 0, i.tokenBurst];
    const rows = await this.exec(TAKE, params, "taken");
    const row = rows?.[0];
    if (!row) return null;
    const now = this.clock();
    this.learnPause(now, row.paused);
    return now + Math.max(0, row.wait) * 1000;
  }

  /** Gives a request and its `tokens` back to the row. */
  private giveBack(tokens: number): void {
    const i = this.intervals();
    this.write(ADJUST, [i.request, -tokens * i.token], "given back");
  }

  /** Looks for a shared pause, at most once every PEEK_MS (the same look for everyone meanwhile). */
  private peek(): Promise<void> {
    if (this.peeking) return this.peeking;
    const now = this.clock();
    if (now - this.peekedAt < PEEK_MS) return Promise.resolve();
    this.peekedAt = now;
    this.peeking = this.exec(PEEK, [], "read", false).then((rows) => {
      if (rows?.[0]) this.learnPause(this.clock(), rows[0].paused);
      this.peeking = null;
    });
    return this.peeking;
  }

  private learnPause(now: number, seconds: number): void {
    if (seconds > 0) this.sharedPausedUntil = Math.max(this.sharedPausedUntil, now + seconds * 1000);
  }

  /** Runs a write in the background (tracked for `idle`). */
  private write(sql: string, params: unknown[], what: string): void {
    const done: Promise<unknown> = this.exec(sql, params, what).then(() => this.writes.delete(done));
    this.writes.add(done);
  }

  /**
   * Runs a statement on the server's row (made first when it is missing and `make`); its rows, or null when it
   * failed (reported: the error names the server and what failed, never the database's address).
   */
  private async exec(
    sql: string,
    params: unknown[],
    what: string,
    make = true,
  ): Promise<Record<string, number>[] | null> {
    const args = [this.serverId, ...params];
    try {
      let res = await this.db.query(sql, args);
      if (res.rowCount === 0 && make) {
        await this.db.query(MAKE, [this.serverId]);
        res = await this.db.query(sql, args);
      }
      return res.rows;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.db.report(
        new Error(
          `the shared rate limit of server ${JSON.stringify(this.serverId)} could not be ${what} ` +
            `(this process goes on with its own limit): ${why}`,
        ),
      );
      return null;
    }
  }
}

/** How often failures are reported at most (ms): a database down fails every request's statement. */
const REPORT_MS = 10_000;

/** Options of `SharedRateLanes`. */
export interface SharedRateOptions {
  /**
   * Told of a failed statement, at most once every 10 seconds (the lanes go on with the local limits meanwhile);
   * default: none.
   */
  onError?: (err: Error) => void;
}

/** The lanes of a process that shares its servers' limits with other processes through PostgreSQL. */
export class SharedRateLanes extends RateLanes {
  private readonly pool: pg.Pool;
  private readonly db: SharedDb;
  private readonly made = new Set<SharedLane>();

  /** `databaseUrl`: the PostgreSQL database the workers share, migrated (pg-migrations.ts, version 5). */
  constructor(databaseUrl: string, options: SharedRateOptions = {}) {
    super();
    let reported = Number.NEGATIVE_INFINITY;
    let dropped = 0;
    const report = (err: Error) => {
      const now = performance.now();
      if (now - reported < REPORT_MS) {
        dropped++;
        return;
      }
      const more = dropped ? ` (and ${dropped} more failures since the last report)` : "";
      reported = now;
      dropped = 0;
      options.onError?.(more ? new Error(err.message + more) : err);
    };
    this.pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 2,
      allowExitOnIdle: true,
      application_name: "workbench rate lanes",
    });
    this.pool.on("error", (err) => report(new Error(`a rate lanes connection failed: ${err.message}`)));
    this.db = { query: (sql, params) => this.pool.query(sql, params), report };
  }

  protected override make(serverId: string, limits: RateLimits): RateLane {
    const lane = new SharedLane(serverId, limits, this.db);
    this.made.add(lane);
    return lane;
  }

  /** Waits for the lanes' writes, then ends the pool; lanes used after it go on with their local limits. */
  async close(): Promise<void> {
    await Promise.all([...this.made].map((lane) => lane.idle()));
    await this.pool.end();
  }
}
