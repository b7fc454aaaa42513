/**
 * Rate limits per server, over HTTP against the reference server started with a rate limit (429 with
 * Retry-After beyond it), on a real SQLite file: the server's limits through the API, a 2,000-example run paced
 * to them, two runs sharing one server's limit, and a 429 pausing the lane instead of spending retries.
 */

import { performance } from "node:perf_hooks";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Progress, RunSummary } from "../src/shapes/runs.js";
import {
  addDataset,
  addServer,
  body,
  post,
  reference,
  runToEnd,
  type TestBench,
  testBench,
} from "./helpers.js";
import { readEvents } from "./sse.js";

let bench: TestBench;

beforeAll(async () => {
  bench = await testBench();
  await addDataset(bench.app, 2000);
});
afterAll(async () => bench.close());

/** The requests a server took (not refused) in the busiest window of `ms` milliseconds. */
function busiest(server: DecisionServerHandle, ms: number): number {
  const at = server.requests.filter((r) => !r.limited).map((r) => r.at);
  let most = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i] - at[j] >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** A run of the tickets dataset on `serverId` with the lexical model, on the test split unless `o` says otherwise. */
function tickets(serverId: string, o: Record<string, unknown>): Record<string, unknown> {
  return { dataset: "tickets", serverId, model: "lexical", splits: ["test"], ...o };
}

describe("a server's rate limits through the API", () => {
  it("are stored, shown, changed and cleared; bad values get a clear 400", async () => {
    const ref = await reference();
    try {
      const id = await addServer(bench.app, ref.url, {
        requestsPerMinute: 1200,
        inputTokensPerMinute: 90000,
      });
      const got = body(await bench.app.inject({ method: "GET", url: `/api/servers/${id}` }));
      expect(got).toMatchObject({ requestsPerMinute: 1200, inputTokensPerMinute: 90000 });
      expect((await bench.storage.getServer(id))?.requestsPerMinute).toBe(1200);

      const patched = await bench.app.inject({
        method: "PATCH",
        url: `/api/servers/${id}`,
        payload: { requestsPerMinute: null },
      });
      expect(body(patched)).toMatchObject({ requestsPerMinute: null, inputTokensPerMinute: 90000 });

      const bad = await bench.app.inject({
        method: "PATCH",
        url: `/api/servers/${id}`,
        payload: { inputTokensPerMinute: 0 },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain(
        "body.inputTokensPerMinute must be a number of estimated input tokens a minute",
      );
      expect(bad.body).toContain("or null for no limit; got 0");
      const text = await post(bench.app, "/api/servers", {
        name: "x",
        baseUrl: ref.url,
        models: ["lexical"],
        requestsPerMinute: "fast",
      });
      expect(text.statusCode).toBe(400);
      expect(text.body).toContain("requestsPerMinute");
      const plain = await addServer(bench.app, ref.url);
      expect(body(await bench.app.inject({ method: "GET", url: `/api/servers/${plain}` }))).toMatchObject({
        requestsPerMinute: null,
        inputTokensPerMinute: null,
      });
    } finally {
      await ref.close();
    }
  });
});

describe("runs paced to their server's rate limit", () => {
  it("2,000 examples at concurrency 32 against a server limited to 50/s: no escalation, few 429s", async () => {
    const ref = await reference({ rateLimit: "50/s" });
    try {
      const serverId = await addServer(bench.app, ref.url, {
        requestsPerMinute: 3000,
        retries: 2,
        backoff: 1,
      });
      const started = performance.now();
      const run = await runToEnd(
        bench,
        tickets(serverId, { splits: ["train", "calibration", "test"], concurrency: 32 }),
      );
      const seconds = (performance.now() - started) / 1000;
      expect(run.status).toBe("done");
      expect(run.progress.done).toBe(2000);
      expect(run.progress.escalated).toBe(0);
      expect(run.progress.errors).toBe(0);
      const limited = ref.rateLimited ?? 0;
      expect(limited / ref.requests.length).toBeLessThan(0.05);
      // generous here (the machine is shared); bench/rate-limit.ts prints the exact ratio
      expect(seconds / (2000 / 50)).toBeLessThan(2);
    } finally {
      await ref.close();
    }
  }, 240_000);

  it("with no limit set, the lane learns the server's from its 429s: no escalation, few 429s", async () => {
    const ref = await reference({ rateLimit: "50/s" });
    try {
      const serverId = await addServer(bench.app, ref.url);
      const run = await runToEnd(bench, tickets(serverId, { concurrency: 32, limit: 400 }));
      expect(run.status).toBe("done");
      expect(run.progress.escalated).toBe(0);
      expect((ref.rateLimited ?? 0) / ref.requests.length).toBeLessThan(0.1);
      expect(bench.engine.lanes.get(serverId)?.learnedRate).not.toBeNull();
    } finally {
      await ref.close();
    }
  }, 120_000);

  it("two runs on the same server share its limit", async () => {
    const ref = await reference({ rateLimit: "100/s" });
    try {
      // the workbench's own limit is the tighter one: 20 a second for both runs together
      const serverId = await addServer(bench.app, ref.url, { requestsPerMinute: 1200 });
      const input = tickets(serverId, { concurrency: 8, limit: 150 });
      const [a, b] = await Promise.all([runToEnd(bench, input), runToEnd(bench, input)]);
      expect([a.status, b.status]).toEqual(["done", "done"]);
      expect(a.progress.escalated + b.progress.escalated).toBe(0);
      expect(ref.rateLimited).toBe(0);
      // a bucket of 20 plus 20 a second: at most 40 in any second (each run alone at concurrency 8 would take
      // far more, the lexical model answers in about a millisecond)
      expect(ref.requests.length).toBe(300);
      expect(busiest(ref, 1000)).toBeLessThanOrEqual(41);
      expect(busiest(ref, 5000)).toBeLessThanOrEqual(20 + 5 * 20 + 1);
    } finally {
      await ref.close();
    }
  }, 120_000);

  it("a 429 pauses the lane for its Retry-After instead of spending the request's retries", async () => {
    // the server allows 2 a second; the workbench knows no limit, so it learns it from the 429s
    const ref = await reference({ rateLimit: "2/s" });
    try {
      const serverId = await addServer(bench.app, ref.url, { retries: 0, backoff: 0.001 });
      const res = await post(bench.app, "/api/runs", tickets(serverId, { concurrency: 4, limit: 8 }));
      expect(res.statusCode).toBe(201);
      const run = body<RunSummary>(res);
      const seen: Progress[] = [];
      bench.engine.follow(run.id, { progress: (p) => seen.push(p()) });
      await bench.engine.settle(run.id);
      const done = body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${run.id}` }));
      expect(done.status).toBe("done");
      expect(done.progress.done).toBe(8);
      // with no retries of its own, each refused request would have escalated
      expect(ref.rateLimited).toBeGreaterThan(0);
      expect(done.progress.escalated).toBe(0);
      expect(seen.some((p) => (p.waitingForRateLimit ?? 0) > 0)).toBe(true);
      expect(done.progress.waitingForRateLimit).toBeNull();
    } finally {
      await ref.close();
    }
  }, 60_000);

  it("progress says how long requests wait for the server's own limit; a cancel stops the wait", async () => {
    const ref = await reference();
    try {
      const serverId = await addServer(bench.app, ref.url, { requestsPerMinute: 60 });
      const res = await post(bench.app, "/api/runs", tickets(serverId, { concurrency: 4, limit: 50 }));
      const run = body<RunSummary>(res);
      const waiting = await new Promise<number>((resolve) => {
        const stop = bench.engine.follow(run.id, {
          progress: (p) => {
            const w = p().waitingForRateLimit;
            if (w !== null && w > 1) {
              stop?.();
              resolve(w);
            }
          },
        });
      });
      // 1 a second with 4 slots: the last slot's request waits about 3 s
      expect(waiting).toBeGreaterThan(1);
      expect(waiting).toBeLessThanOrEqual(4);
      const cancelled = body<RunSummary>(await post(bench.app, `/api/runs/${run.id}/cancel`));
      expect(cancelled.status).toBe("cancelled");
      await bench.engine.settle(run.id);
      const after = body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${run.id}` }));
      expect(after.progress.done).toBeLessThan(50);
      expect(after.progress.escalated).toBe(0);
      expect(after.progress.waitingForRateLimit).toBeNull();
    } finally {
      await ref.close();
    }
  }, 60_000);

  it("the run's event stream says it waits for the rate limit, and no more once done", async () => {
    const ref = await reference();
    try {
      const url = await bench.listen();
      const serverId = await addServer(bench.app, ref.url, { requestsPerMinute: 60 });
      const res = await post(bench.app, "/api/runs", tickets(serverId, { concurrency: 3, limit: 4 }));
      const run = body<RunSummary>(res);
      const { events } = await readEvents(`${url}/api/runs/${run.id}/events`);
      const progress = events.filter((e) => e.event === "progress").map((e) => e.data as Progress);
      expect(progress.some((p) => (p.waitingForRateLimit ?? 0) > 0)).toBe(true);
      const done = events.find((e) => e.event === "done")?.data as RunSummary;
      expect(done.status).toBe("done");
      expect(done.progress.waitingForRateLimit).toBeNull();
    } finally {
      await ref.close();
    }
  }, 60_000);
});
