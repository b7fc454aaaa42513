/**
 * The rate lane shared through PostgreSQL (engine/rate-shared.ts): two SharedRateLanes on pools of their own, as
 * two worker processes would hold, against the test server. The rates are measured over the steady part (after
 * the first second's burst) and must be within 10 % of the limit.
 */

import { performance } from "node:perf_hooks";
import { AbortError } from "@decision-workbench/scorer";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RateLane, type RateLimits } from "../src/engine/rate-lane.js";
import { type SharedLane, SharedRateLanes } from "../src/engine/rate-shared.js";
import { migratePostgres } from "../src/storage/postgres/pg-migrations.js";
import { type TestDatabase, testDatabase } from "./postgres.js";

let db: TestDatabase;
let one: SharedRateLanes;
let two: SharedRateLanes;
const errors: Error[] = [];

beforeAll(async () => {
  db = await testDatabase();
  const pool = new pg.Pool({ connectionString: db.url });
  await migratePostgres(pool);
  await pool.end();
  one = new SharedRateLanes(db.url, { onError: (err) => errors.push(err) });
  two = new SharedRateLanes(db.url, { onError: (err) => errors.push(err) });
});

afterAll(async () => {
  await one?.close();
  await two?.close();
  await db?.drop();
});

const perSecond = (n: number): RateLimits => ({ requestsPerMinute: n * 60, inputTokensPerMinute: null });
const NONE: RateLimits = { requestsPerMinute: null, inputTokensPerMinute: null };

/** Both processes' lanes of a server of its own. */
function lanes(serverId: string, limits: RateLimits): [SharedLane, SharedLane] {
  return [one.lane(serverId, limits) as SharedLane, two.lane(serverId, limits) as SharedLane];
}

/**
 * `takers` concurrent takers on each lane, each asking request after request with `tokens` input tokens for
 * `seconds`; returns the requests a second let go after the first `skip` seconds (the burst).
 */
async function rate(lanes: RateLane[], takers: number, seconds: number, skip: number, tokens = 0) {
  const start = performance.now();
  const end = start + seconds * 1000;
  const sent: number[] = [];
  await Promise.all(
    lanes.flatMap((lane) =>
      Array.from({ length: takers }, async () => {
        while (performance.now() < end) {
          await lane.wait(lane.reserve(tokens), undefined, tokens);
          sent.push(performance.now());
        }
      }),
    ),
  );
  const from = start + skip * 1000;
  return sent.filter((t) => t >= from && t < end).length / (seconds - skip);
}

/** Seconds of requests (or tokens) the server's row has taken ahead of the database's clock. */
async function ahead(serverId: string, column: "request_tat" | "token_tat" = "request_tat"): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ ahead: number }>(
      `SELECT ${column} - extract(epoch FROM clock_timestamp())::float8 AS ahead FROM rate_lanes WHERE server_id = $1`,
      [serverId],
    );
    return rows[0].ahead;
  } finally {
    await client.end();
  }
}

describe("SharedRateLanes", () => {
  it("holds 50 requests a second across two processes; two local lanes would let 100 go", async () => {
    const shared = await rate(lanes("steady", perSecond(50)), 20, 4, 1.5);
    const local = await rate(
      [new RateLane("a", perSecond(50)), new RateLane("b", perSecond(50))],
      20,
      3,
      1.5,
    );
    console.log(`shared: ${shared.toFixed(1)}/s, two local lanes: ${local.toFixed(1)}/s (limit 50/s)`);
    expect(shared).toBeGreaterThan(45);
    expect(shared).toBeLessThan(55);
    expect(local).toBeGreaterThan(55);
  });

  it("holds the input tokens a minute across two processes", async () => {
    // 1000 tokens a second, 20 a request: 50 requests a second together
    const limits = { requestsPerMinute: null, inputTokensPerMinute: 60_000 };
    const measured = await rate(lanes("tokens", limits), 10, 4, 1.5, 20);
    console.log(`tokens: ${(measured * 20).toFixed(0)} tokens/s (limit 1000/s)`);
    expect(measured).toBeGreaterThan(45);
    expect(measured).toBeLessThan(55);
  });

  it("the reply's usage corrects the shared token debt, either way", async () => {
    // 10 tokens a second, a burst of 10: an estimate of 10 goes at once, 90 more used leave nine seconds of debt
    const [a] = lanes("settled", { requestsPerMinute: null, inputTokensPerMinute: 600 });
    await a.wait(a.reserve(10), undefined, 10);
    expect(await ahead("settled", "token_tat")).toBeLessThan(1.01);
    a.settle(10, 100);
    await a.idle();
    expect(await ahead("settled", "token_tat")).toBeGreaterThan(9);
    a.settle(100, 10);
    await a.idle();
    expect(await ahead("settled", "token_tat")).toBeLessThan(1.01);
  });

  it("waits a request's tokens out once, not here and again in the row", async () => {
    // 10 tokens a second, a burst of 10: 20 tokens go after one second (two when the local debt came first)
    const [a] = lanes("once", { requestsPerMinute: null, inputTokensPerMinute: 600 });
    const start = performance.now();
    await a.wait(a.reserve(20), undefined, 20);
    const seconds = (performance.now() - start) / 1000;
    expect(seconds).toBeGreaterThan(0.9);
    expect(seconds).toBeLessThan(1.5);
  });

  it("a 429 on one process pauses the other's next request for at least the pause", async () => {
    const [a, b] = lanes("paused", perSecond(10));
    await b.wait(b.reserve(0)); // b has gone before: only the shared row can hold it back
    const start = performance.now();
    expect(a.pause(1)).toBe(1);
    await a.idle();
    const waiting = b.wait(b.reserve(0));
    await vi.waitFor(() => expect(b.secondsLeft(0)).toBeGreaterThan(0.5));
    await waiting;
    // the timers' millisecond rounding aside
    expect(performance.now() - start).toBeGreaterThanOrEqual(999);
  });

  it("an abort during the shared wait rejects with an AbortError and gives the slot back", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const [a, b] = lanes("aborted", perSecond(1));
      await a.wait(a.reserve(0)); // the burst of one: b's next request waits a second
      const controller = new AbortController();
      const waiting = b.wait(b.reserve(0), controller.signal);
      await vi.waitFor(() => expect(b.secondsLeft(0)).toBeGreaterThan(0.5));
      controller.abort();
      await expect(waiting).rejects.toBeInstanceOf(AbortError);
      b.cancel(0);
      // aborted before its statement ran: no slot kept either
      const early = new AbortController();
      const quick = b.wait(b.reserve(0), early.signal);
      early.abort();
      await expect(quick).rejects.toBeInstanceOf(AbortError);
      b.cancel(0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await b.idle();
      // both slots went back: only a's request is ahead in the row (without them: two seconds' worth)
      expect(await ahead("aborted")).toBeLessThan(1);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("a lane is free once its limits are removed, and not while a shared pause is in force", async () => {
    const [a, b] = lanes("freed", perSecond(5));
    expect(a.free).toBe(false);
    a.setLimits(NONE);
    b.setLimits(NONE);
    expect(a.free).toBe(true);
    b.pause(1.5);
    await b.idle();
    await vi.waitFor(() => expect(a.free).toBe(false), { timeout: 3000, interval: 50 });
    expect(a.secondsLeft(0)).toBeGreaterThan(0);
    await vi.waitFor(() => expect(a.free).toBe(true), { timeout: 3000, interval: 50 });
  });

  it("goes on with the local limit when the shared row cannot be had, and reports it without the password", async () => {
    const url = new URL(db.url);
    url.password = "s3cret-password";
    url.pathname = "/postgres"; // a database without the rate_lanes table
    const failures: Error[] = [];
    const broken = new SharedRateLanes(url.toString(), { onError: (err) => failures.push(err) });
    try {
      const lane = broken.lane("broken", perSecond(50)) as SharedLane;
      expect(lane.pause(0.01)).toBe(0.01);
      await lane.idle();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await lane.wait(lane.reserve(0));
      expect(lane.sent).toBe(1);
      expect(failures.length).toBeGreaterThan(0);
      expect(failures[0].message).toMatch(/^the shared rate limit of server "broken" could not be paused/);
      expect(failures[0].message).toMatch(/rate_lanes/);
      for (const f of failures) expect(f.message).not.toContain("s3cret");
    } finally {
      await broken.close();
    }
  });

  it("reports no failed statement", () => {
    expect(errors).toEqual([]);
  });
});
