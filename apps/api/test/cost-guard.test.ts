/**
 * The cost guard, over HTTP against the reference server on a real SQLite file: a server's prices, a run's
 * estimate before it starts (matched against the tokens the run then reports), a budget stop (no request sent
 * beyond the cap but those in flight, counted on the reference server) and its resume with a higher cap.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEstimate, RunSummary } from "../src/shapes/runs.js";
import {
  addDataset,
  addServer,
  body,
  post,
  reference,
  requestsPerState,
  runToEnd,
  type TestBench,
  testBench,
} from "./helpers.js";

let bench: TestBench;

/** Stated tolerance: the estimate is within 5 % of the input tokens the reference server reports. */
const TOLERANCE = 0.05;

beforeAll(async () => {
  bench = await testBench();
  await addDataset(bench.app, 300);
});
afterAll(async () => bench.close());

describe("a server's prices", () => {
  it("are stored, shown, changed and cleared; bad values get a 400 saying what is right", async () => {
    const ref = await reference();
    try {
      const id = await addServer(bench.app, ref.url, {
        inputPricePerMillion: 0.15,
        outputPricePerMillion: 0.6,
      });
      expect(body(await bench.app.inject({ method: "GET", url: `/api/servers/${id}` }))).toMatchObject({
        inputPricePerMillion: 0.15,
        outputPricePerMillion: 0.6,
      });
      expect((await bench.storage.getServer(id))?.outputPricePerMillion).toBe(0.6);
      const patched = await bench.app.inject({
        method: "PATCH",
        url: `/api/servers/${id}`,
        payload: { outputPricePerMillion: null },
      });
      expect(body(patched)).toMatchObject({ inputPricePerMillion: 0.15, outputPricePerMillion: null });
      const bad = await bench.app.inject({
        method: "PATCH",
        url: `/api/servers/${id}`,
        payload: { inputPricePerMillion: -1 },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain(
        "body.inputPricePerMillion must be the price of a million input tokens, such as 0.15 (a number above 0",
      );
      expect(bad.body).toContain("or null for none; got -1");
      expect((await bench.storage.getServer(id))?.inputPricePerMillion).toBe(0.15);
    } finally {
      await ref.close();
    }
  });
});

describe("a run's estimate", () => {
  it("matches the input tokens the run then reports, and prices them as the run does", async () => {
    const ref = await reference();
    try {
      const serverId = await addServer(bench.app, ref.url, {
        inputPricePerMillion: 2,
        outputPricePerMillion: 8,
      });
      const input = { dataset: "tickets", serverId, model: "lexical", concurrency: 4 };
      const res = await post(bench.app, "/api/runs/estimate", input);
      expect(res.statusCode).toBe(200);
      const estimate = body<RunEstimate>(res);
      expect(ref.requests.length).toBe(0); // nothing is sent
      const run = await runToEnd(bench, input);
      expect(run.status).toBe("done");
      expect(estimate.examples).toBe(run.progress.total);
      expect(estimate.decisions).toBe(run.progress.total * 3);
      const used = run.progress.usage;
      const inputError = Math.abs(estimate.inputTokens - used.input_tokens) / used.input_tokens;
      expect(inputError).toBeLessThanOrEqual(TOLERANCE);
      // output: the longest answer per decision, never below what the reference server reports
      expect(estimate.outputTokens).toBeGreaterThanOrEqual(used.output_tokens);
      expect(estimate.cost).toBeCloseTo((estimate.inputTokens * 2 + estimate.outputTokens * 8) / 1e6, 12);
      // the replies carry no cost: the run's cost is from the prices
      expect(run.progress.cost).toBeCloseTo((used.input_tokens * 2 + used.output_tokens * 8) / 1e6, 9);
      expect(run.progress.cost).toBeGreaterThan(0);
      console.log(
        `estimate: ${estimate.inputTokens} input tokens vs ${used.input_tokens} reported (${(100 * inputError).toFixed(2)} %), ${estimate.outputTokens} output vs ${used.output_tokens}`,
      );
    } finally {
      await ref.close();
    }
  });

  it("without prices has no cost; bad input gets the same 400 or 404 as starting the run", async () => {
    const ref = await reference();
    try {
      const serverId = await addServer(bench.app, ref.url);
      const base = { dataset: "tickets", serverId, model: "lexical" };
      const plain = body<RunEstimate>(await post(bench.app, "/api/runs/estimate", base));
      expect(plain.cost).toBeNull();
      expect(plain.inputPricePerMillion).toBeNull();
      expect(plain.inputTokens).toBeGreaterThan(0);

      const limited = body<RunEstimate>(await post(bench.app, "/api/runs/estimate", { ...base, limit: 5 }));
      expect(limited.inputTokens).toBeLessThan(plain.inputTokens);

      const negative = await post(bench.app, "/api/runs", { ...base, maxCost: -2 });
      expect(negative.statusCode).toBe(400);
      expect(negative.body).toContain("body.maxCost must be the most the run may cost");
      expect(negative.body).toContain("got -2");
      const text = await post(bench.app, "/api/runs/estimate", { ...base, maxInputTokens: "lots" });
      expect(text.statusCode).toBe(400);
      expect(text.body).toContain("maxInputTokens");
      const missing = await post(bench.app, "/api/runs/estimate", { ...base, dataset: "nope" });
      expect(missing.statusCode).toBe(404);
      expect(ref.requests.length).toBe(0);
    } finally {
      await ref.close();
    }
  });
});

describe("a budget", () => {
  it("stops the run before the cap, sends nothing beyond it, and a resume with a higher cap completes it", async () => {
    const ref = await reference();
    try {
      const serverId = await addServer(bench.app, ref.url);
      const input = { dataset: "tickets", serverId, model: "lexical", concurrency: 8 };
      const estimate = body<RunEstimate>(await post(bench.app, "/api/runs/estimate", input));
      const cap = Math.round(estimate.inputTokens * 0.3);
      const stopped = await runToEnd(bench, { ...input, maxInputTokens: cap });
      expect(stopped.status).toBe("stopped");
      expect(stopped.stopReason).toBe("budget");
      expect(stopped.maxInputTokens).toBe(cap);
      expect(stopped.progress.budget).toEqual({ maxCost: null, maxInputTokens: cap });
      const p = stopped.progress;
      expect(p.done).toBeGreaterThan(0);
      expect(p.done).toBeLessThan(p.total);
      // every request the server received was answered and stored: none went after the stop
      expect(ref.requests.length).toBe(p.done);
      // the requests sent fit the cap by their estimates; the replies' tokens stay within the stated tolerance
      expect(p.usage.input_tokens).toBeLessThanOrEqual(cap * (1 + TOLERANCE));
      // one more request would have gone past the cap
      expect(p.usage.input_tokens + estimate.inputTokens / p.total).toBeGreaterThan(cap * (1 - TOLERANCE));

      const refused = await post(bench.app, `/api/runs/${stopped.id}/resume`, {
        maxInputTokens: Math.floor(p.usage.input_tokens / 2),
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.body).toContain("budget_reached");
      expect(refused.body).toContain("resume it with a higher cap");
      expect(ref.requests.length).toBe(p.done);

      const resumed = await post(bench.app, `/api/runs/${stopped.id}/resume`, { maxInputTokens: null });
      expect(resumed.statusCode).toBe(200);
      expect(body<RunSummary>(resumed).stopReason).toBeNull();
      await bench.engine.settle(stopped.id);
      const done = body<RunSummary>(
        await bench.app.inject({ method: "GET", url: `/api/runs/${stopped.id}` }),
      );
      expect(done.status).toBe("done");
      expect(done.maxInputTokens).toBeNull();
      expect(done.progress.done).toBe(done.progress.total);
      // no example asked twice, none stored twice
      expect(ref.requests.length).toBe(done.progress.total);
      expect([...requestsPerState(ref).values()].every((n) => n === 1)).toBe(true);
      const rows = await bench.storage.listPredictions(stopped.id);
      expect(rows.length).toBe(done.progress.total * 3);
      expect(new Set(rows.map((r) => `${r.exampleId}/${r.item}`)).size).toBe(rows.length);
      console.log(
        `budget: cap ${cap} input tokens, stopped at ${p.usage.input_tokens} after ${p.done} of ${p.total} examples`,
      );
    } finally {
      await ref.close();
    }
  });

  it("of cost stops a priced run; the cap is kept on a resume without a body", async () => {
    const ref = await reference();
    try {
      const serverId = await addServer(bench.app, ref.url, {
        inputPricePerMillion: 1000,
        outputPricePerMillion: 1000,
      });
      const input = { dataset: "tickets", serverId, model: "lexical", concurrency: 2 };
      const estimate = body<RunEstimate>(await post(bench.app, "/api/runs/estimate", input));
      const maxCost = (estimate.cost ?? 0) / 4;
      const stopped = await runToEnd(bench, { ...input, maxCost });
      expect(stopped.status).toBe("stopped");
      expect(stopped.stopReason).toBe("budget");
      expect(stopped.progress.cost).toBeLessThanOrEqual(maxCost);
      expect(ref.requests.length).toBe(stopped.progress.done);
      // resumed with the same cap, the next request still does not fit: it stops again, nothing sent
      const again = await post(bench.app, `/api/runs/${stopped.id}/resume`);
      expect(again.statusCode).toBe(200);
      await bench.engine.settle(stopped.id);
      const after = body<RunSummary>(
        await bench.app.inject({ method: "GET", url: `/api/runs/${stopped.id}` }),
      );
      expect(after.status).toBe("stopped");
      expect(after.maxCost).toBe(maxCost);
      expect(ref.requests.length).toBe(stopped.progress.done);
    } finally {
      await ref.close();
    }
  });
});
