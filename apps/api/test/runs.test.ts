import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisData } from "../src/analysis/data.js";
import { headlineMetrics } from "../src/analysis/headline.js";
import { maxUnstored } from "../src/engine/job.js";
import { percentiles } from "../src/engine/percentiles.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { syntheticExamples } from "./fixtures.js";
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
let ref: DecisionServerHandle;
let slow: DecisionServerHandle;
let serverId: string;
let slowId: string;

beforeAll(async () => {
  bench = await testBench();
  ref = await reference();
  slow = await reference({ faults: { rules: [{ rate: 1, fault: { kind: "delay", ms: 40 } }] } });
  serverId = await addServer(bench.app, ref.url);
  slowId = await addServer(bench.app, slow.url);
  await addDataset(bench.app, 60);
});

afterAll(async () => {
  await bench.close();
  await ref.close();
  await slow.close();
});

const error = (res: { body: string }) =>
  body<{ error: { code: string; message: string } }>(res as never).error;

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe("runs", () => {
  it("finishes a limited run with correct counts, gold labels and one request per example", async () => {
    const before = ref.requests.length;
    const run = await runToEnd(bench, {
      dataset: "tickets",
      serverId,
      model: "lexical",
      limit: 7,
      concurrency: 4,
    });
    expect(run.status).toBe("done");
    expect(run.splits).toEqual(["calibration", "test"]);
    const p = run.progress;
    expect(p.total).toBe(14);
    expect(p.done).toBe(14);
    expect(p.answered + p.unknown + p.escalated).toBe(14 * 3);
    expect(p.escalated).toBe(0);
    expect(p.errors).toBe(0);
    expect(p.usage.input_tokens).toBeGreaterThan(0);
    expect(p.latency.p50).toBeGreaterThan(0);
    expect(p.latency.p50).toBeLessThanOrEqual(p.latency.p99);
    expect(ref.requests.length - before).toBe(14);
    expect(run.servedBy).toEqual(["lexical"]);
    expect(run.headline.accuracy).not.toBeNull();
    // every usable row of the headline's split (test): 7 examples x 3 items, none escalated
    expect(run.headline.n).toBe(21);
    expect(Number.isInteger(Math.round((run.headline.accuracy as number) * 21 * 1e9) / 1e9)).toBe(true);
    expect(run.fingerprint).toBe(`decision|${ref.url}/v1/decision|lexical`);

    const rows = await bench.storage.listPredictions(run.id);
    expect(rows.length).toBe(42);
    const examples = syntheticExamples(60);
    const expectedIds = [
      ...examples.filter((e) => e.split === "calibration").slice(0, 7),
      ...examples.filter((e) => e.split === "test").slice(0, 7),
    ].map((e) => e.id);
    expect(new Set(rows.map((r) => r.exampleId))).toEqual(new Set(expectedIds));
    for (const r of rows) {
      const ex = examples.find((e) => e.id === r.exampleId) as { labels: Record<string, unknown> };
      expect(r.gold).toEqual(ex.labels[r.item]);
      expect(r.record.endpoint).toBe(`${ref.url}/v1/decision`);
    }
    const topics = rows.filter((r) => r.item === "topics" && r.status === "answered");
    expect(topics.every((r) => Array.isArray(r.answer))).toBe(true);
  });

  it("asks on while answers wait for their commit, never more than maxUnstored of them, and stores them all", async () => {
    const storage = bench.storage;
    const record = storage.recordExample.bind(storage);
    let waiting = 0;
    let most = 0;
    // every commit held back 30 ms: a slot that waited for its own would ask at most one example per 30 ms
    storage.recordExample = async (result) => {
      most = Math.max(most, ++waiting);
      await new Promise((r) => setTimeout(r, 30));
      try {
        await record(result);
      } finally {
        waiting--;
      }
    };
    try {
      const run = await runToEnd(bench, {
        dataset: "tickets",
        serverId,
        model: "lexical",
        splits: ["train", "calibration", "test"],
        concurrency: 2,
      });
      expect(run.status).toBe("done");
      expect(run.progress.done).toBe(60);
      expect((await storage.listPredictions(run.id)).length).toBe(180);
      expect(most).toBeGreaterThan(2);
      expect(most).toBeLessThanOrEqual(maxUnstored(2));
    } finally {
      storage.recordExample = record;
    }
  });

  it("stores a finished run's headline: the stored rows' own, escalated rows left out", async () => {
    const faulty = await reference({ faults: { rules: [{ rate: 0.1, fault: { kind: "nan" } }] } });
    try {
      const faultyId = await addServer(bench.app, faulty.url);
      await addDataset(bench.app, 600, "many");
      const started = await post(bench.app, "/api/runs", {
        dataset: "many",
        serverId: faultyId,
        model: "lexical",
        concurrency: 16,
      });
      const id = body<RunSummary>(started).id;
      // the summary of the `done` event
      const run = await new Promise<RunSummary>((resolve) => bench.engine.follow(id, { done: resolve }));
      expect(run.status).toBe("done");
      expect(run.progress.escalated).toBeGreaterThan(0);
      expect(run.progress.unknown).toBeGreaterThan(0);
      // the same as the headline of the stored decisions on the test split, converted in memory
      const rows = await bench.storage.listPredictions(id, { split: "test" });
      const fromRows = headlineMetrics(rows);
      expect(run.headline.accuracy).toBe(fromRows.accuracy);
      expect(run.headline.ece).toBeCloseTo(fromRows.ece as number, 12);
      expect(run.headline.n).toBe(fromRows.n);
      expect(run.headline.n).toBeLessThan(rows.length);
      expect(run.headline.n).toBeGreaterThan(0);
      expect((await bench.storage.getStoredRun(id))?.headline).toEqual(run.headline);
      expect((await bench.storage.getStoredRun(id))?.stats).toEqual({
        latency: run.progress.latency,
        servedBy: run.servedBy,
      });
      // a finished run without a stored headline (finished by another process) gets it computed and stored
      await bench.storage.updateRun(id, { headline: null });
      const listed = body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${id}` }));
      expect(listed.headline).toEqual(run.headline);
      expect((await bench.storage.getStoredRun(id))?.headline).toEqual(run.headline);
      expect(run.progress.latency).toEqual(percentiles(await bench.storage.latencies(id)));
      await bench.engine.settle(id);
    } finally {
      await faulty.close();
    }
  });

  it("lists runs newest first, filtered by dataset and status", async () => {
    const run = await runToEnd(bench, {
      dataset: "tickets",
      serverId,
      model: "lexical",
      limit: 2,
      splits: ["test"],
    });
    const all = body<RunSummary[]>(await bench.app.inject({ method: "GET", url: "/api/runs" }));
    expect(all[0].id).toBe(run.id);
    const done = body<RunSummary[]>(
      await bench.app.inject({ method: "GET", url: "/api/runs?status=done&dataset=tickets" }),
    );
    expect(done.map((r) => r.id)).toContain(run.id);
    expect(done.every((r) => r.status === "done" && r.dataset === "tickets")).toBe(true);
    const none = body<RunSummary[]>(
      await bench.app.inject({ method: "GET", url: "/api/runs?dataset=other" }),
    );
    expect(none).toEqual([]);
    const bad = await bench.app.inject({ method: "GET", url: "/api/runs?status=finished" });
    expect(bad.statusCode).toBe(400);
    expect(error(bad).message).toContain("querystring.status must be one of");
  });

  it("cancels a running run, keeps what was answered, and resumes without asking any example twice", async () => {
    const started = body<RunSummary>(
      await post(bench.app, "/api/runs", {
        dataset: "tickets",
        serverId: slowId,
        model: "lexical",
        splits: ["train"],
        concurrency: 2,
      }),
    );
    expect(started.status).toBe("running");
    expect(started.progress.total).toBe(20);
    await waitFor(
      async () => (await bench.storage.getStoredRun(started.id))!.counters.done >= 4,
      "4 answers",
    );
    const cancelled = body<RunSummary>(await post(bench.app, `/api/runs/${started.id}/cancel`));
    expect(cancelled.status).toBe("cancelled");
    await bench.engine.settle(started.id);
    const after = body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${started.id}` }));
    expect(after.status).toBe("cancelled");
    expect(after.progress.done).toBeLessThan(20);
    // what the summary shows once stopped is what the stored rows give
    const stored = async () => ({
      headline: await new AnalysisData(bench.storage).headline(started.id),
      latency: percentiles(await bench.storage.latencies(started.id)),
    });
    expect({ headline: after.headline, latency: after.progress.latency }).toEqual(await stored());
    expect((await bench.storage.listPredictions(started.id)).length).toBe(after.progress.done * 3);
    const again = await post(bench.app, `/api/runs/${started.id}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(error(again).message).toContain("already cancelled");

    const resumed = body<RunSummary>(await post(bench.app, `/api/runs/${started.id}/resume`));
    expect(resumed.status).toBe("running");
    // stats and a headline some reader stored while the run was running are not those of the finished run
    const stale = { latency: { p50: 1, p90: 1, p99: 1 }, servedBy: ["stale"] };
    await bench.storage.updateRun(started.id, { stats: stale, headline: { accuracy: 0, ece: 1, n: 1 } });
    await bench.engine.settle(started.id);
    const final = body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${started.id}` }));
    expect(final.status).toBe("done");
    expect(final.progress.done).toBe(20);
    expect(final.servedBy).not.toContain("stale");
    expect((await bench.storage.getStoredRun(started.id))?.stats?.servedBy).not.toContain("stale");
    // resumed: its headline covers the answers of both sessions
    expect({ headline: final.headline, latency: final.progress.latency }).toEqual(await stored());
    const rows = await bench.storage.listPredictions(started.id);
    expect(rows.length).toBe(60);
    const counts = requestsPerState(slow);
    const states = syntheticExamples(60)
      .filter((e) => e.split === "train")
      .map((e) => e.state as string);
    expect(states.map((s) => counts.get(s))).toEqual(states.map(() => 1));

    const doneAgain = await post(bench.app, `/api/runs/${started.id}/resume`);
    expect(doneAgain.statusCode).toBe(409);
    expect(error(doneAgain).message).toContain("is done");
  });

  it("deletes a run with its predictions", async () => {
    const run = await runToEnd(bench, { dataset: "tickets", serverId, model: "lexical", limit: 1 });
    const del = await bench.app.inject({ method: "DELETE", url: `/api/runs/${run.id}` });
    expect(del.statusCode).toBe(204);
    expect((await bench.app.inject({ method: "GET", url: `/api/runs/${run.id}` })).statusCode).toBe(404);
    expect(await bench.storage.listPredictions(run.id)).toEqual([]);
  });

  it("answers 404 for an unknown run on every run route", async () => {
    for (const [method, url] of [
      ["GET", "/api/runs/run_nope"],
      ["POST", "/api/runs/run_nope/cancel"],
      ["POST", "/api/runs/run_nope/resume"],
      ["POST", "/api/runs/run_nope/replay"],
      ["DELETE", "/api/runs/run_nope"],
      ["GET", "/api/runs/run_nope/events"],
    ] as const) {
      const res = await bench.app.inject({ method, url, headers: { "x-workbench": "1" } });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(error(res).message).toContain('run "run_nope" does not exist');
    }
  });

  it.each([
    [{ serverId: "x", model: "lexical" }, 400, 'missing the required field "dataset"'],
    [{ dataset: "nope" }, 400, 'missing the required field "serverId"'],
    [{ dataset: "nope", serverId: "SERVER", model: "lexical" }, 404, 'dataset "nope" does not exist'],
    [{ dataset: "tickets", serverId: "srv_nope", model: "lexical" }, 404, 'server "srv_nope" does not exist'],
    [{ dataset: "tickets", serverId: "SERVER", model: "gpt" }, 400, '"gpt" is not one of server'],
    [
      { dataset: "tickets", serverId: "SERVER", model: "lexical", splits: ["dev"] },
      400,
      "body.splits[0] must be one of",
    ],
    [{ dataset: "tickets", serverId: "SERVER", model: "lexical", splits: [] }, 400, "fewer than 1 items"],
    [
      { dataset: "tickets", serverId: "SERVER", model: "lexical", concurrency: 0 },
      400,
      "body.concurrency must be >= 1",
    ],
    [
      { dataset: "tickets", serverId: "SERVER", model: "lexical", concurrency: 257 },
      400,
      "body.concurrency must be <= 256",
    ],
    [
      { dataset: "tickets", serverId: "SERVER", model: "lexical", concurrency: "8" },
      400,
      "body.concurrency must be an integer",
    ],
    [{ dataset: "tickets", serverId: "SERVER", model: "lexical", limit: 0 }, 400, "body.limit"],
    [{ dataset: "tickets", serverId: "SERVER", model: "lexical", maxLen: "long" }, 400, "body.maxLen"],
    [
      { dataset: "tickets", serverId: "SERVER", model: "lexical", options: { max_thinking: 5 } },
      400,
      'unknown field "max_thinking"',
    ],
    [
      { dataset: "tickets", serverId: "SERVER", model: "lexical", options: { nothink_threshold: 2 } },
      400,
      "nothink_threshold",
    ],
    [{ dataset: "tickets", serverId: "SERVER", model: "lexical", colour: 1 }, 400, 'unknown field "colour"'],
  ])("POST /api/runs %j is refused with a message", async (payload, status, message) => {
    const withServer = JSON.parse(JSON.stringify(payload).replace("SERVER", serverId));
    const res = await post(bench.app, "/api/runs", withServer);
    expect(res.statusCode).toBe(status);
    expect(error(res).message).toContain(message);
  });

  it("refuses a body that is not JSON, and one of the wrong media type", async () => {
    const broken = await bench.app.inject({
      method: "POST",
      url: "/api/runs",
      headers: { "content-type": "application/json" },
      payload: '{"dataset": "tickets",',
    });
    expect(broken.statusCode).toBe(400);
    expect(error(broken).code).toBe("invalid_json");
    const text = await bench.app.inject({
      method: "POST",
      url: "/api/runs",
      headers: { "content-type": "text/plain", "x-workbench": "1" },
      payload: "dataset=tickets",
    });
    expect(text.statusCode).toBe(415);
    expect(error(text).message).toContain("application/json");
  });

  it("replays a run: new requests for a deterministic server, recorded outputs otherwise; tampering is caught", async () => {
    const run = await runToEnd(bench, { dataset: "tickets", serverId, model: "lexical", limit: 3 });
    const before = ref.requests.length;
    const det = body<{ checked: number; differing: number; called: boolean }>(
      await post(bench.app, `/api/runs/${run.id}/replay`),
    );
    expect(det).toMatchObject({ checked: 18, differing: 0, called: true });
    // one request per example (6 examples x 3 items), the batch the run sent, not one per decision
    expect(ref.requests.length - before).toBe(6);

    await bench.app.inject({
      method: "PATCH",
      url: `/api/servers/${serverId}`,
      payload: { deterministic: false },
    });
    // the logits of item 'team' (the first of the example's packed items; their logits are the first array of the
    // row's logits column), changed in the database behind the workbench's back
    if (process.env.WORKBENCH_TEST_STORE === "postgres") {
      const client = new pg.Client({ connectionString: bench.storage.path });
      await client.connect();
      const tampered = await client.query(
        "UPDATE run_examples SET logits = jsonb_set(logits::jsonb, '{0}', '[0,0,5]')::text WHERE run_id = $1 AND ordinal = 0 AND (items::jsonb) -> 0 ->> 0 = 'team'",
        [run.id],
      );
      expect(tampered.rowCount).toBe(1);
      await client.end();
    } else {
      const db = new Database(bench.storage.path);
      const tampered = db
        .prepare(
          "UPDATE run_examples SET logits = json_set(logits, '$[0]', json('[0,0,5]')) WHERE run_id = ? AND ordinal = 0 AND items ->> '$[0][0]' = 'team'",
        )
        .run(run.id);
      expect(tampered.changes).toBe(1);
      db.close();
    }
    const rec = body<{
      checked: number;
      differing: number;
      called: boolean;
      byField: Record<string, number>;
      examples: { item: string }[];
    }>(await post(bench.app, `/api/runs/${run.id}/replay`));
    expect(ref.requests.length - before).toBe(6);
    expect(rec.called).toBe(false);
    expect(rec.checked).toBe(18);
    expect(rec.differing).toBe(1);
    expect(rec.examples[0].item).toBe("team");
    expect(Object.keys(rec.byField).length).toBeGreaterThan(0);
    await bench.app.inject({
      method: "PATCH",
      url: `/api/servers/${serverId}`,
      payload: { deterministic: true },
    });
  });

  it("refuses to replay a running run", async () => {
    const started = body<RunSummary>(
      await post(bench.app, "/api/runs", {
        dataset: "tickets",
        serverId: slowId,
        model: "lexical",
        splits: ["test"],
        concurrency: 1,
      }),
    );
    const res = await post(bench.app, `/api/runs/${started.id}/replay`);
    expect(res.statusCode).toBe(409);
    expect(error(res).message).toContain("still running");
    await post(bench.app, `/api/runs/${started.id}/cancel`);
    await bench.engine.settle(started.id);
  });
});

describe("run options", () => {
  it("sends the server options in extraBody.options and stores the reasoning per item", async () => {
    const before = ref.requests.length;
    const run = await runToEnd(bench, {
      dataset: "tickets",
      serverId,
      model: "lexical",
      limit: 2,
      splits: ["test"],
      options: { return_reasoning: true, max_think: 64 },
    });
    expect(run.status).toBe("done");
    expect(run.options).toEqual({ return_reasoning: true, max_think: 64 });
    const sent = ref.requests.slice(before).map((r) => JSON.parse(r.body) as { options?: unknown });
    expect(sent.length).toBe(2);
    for (const b of sent) expect(b.options).toEqual({ return_reasoning: true, max_think: 64 });
    const rows = await bench.storage.listPredictions(run.id);
    expect(rows.every((r) => r.record.reasoning !== undefined)).toBe(true);
    const multi = rows.find((r) => r.item === "topics");
    expect(Object.keys(multi?.record.reasoning ?? {})).toEqual(
      expect.arrayContaining(["refund", "delivery"]),
    );
    expect(run.fingerprint).toMatch(/\|x:[0-9a-f]{16}$/);
  });

  it("cuts long states to maxLen estimated tokens", async () => {
    const long = {
      task: (await import("./fixtures.js")).syntheticTask("long"),
      format: "jsonl",
      content: `${JSON.stringify({
        id: "l1",
        state: Array.from(
          { length: 400 },
          (_, i) => `Sentence ${i} says the parcel is late and the courier lost it.`,
        ).join(" "),
        labels: { team: "shipping" },
        split: "test",
      })}\n`,
    };
    expect((await post(bench.app, "/api/datasets", long)).statusCode).toBe(201);
    const before = ref.requests.length;
    const run = await runToEnd(bench, {
      dataset: "long",
      serverId,
      model: "lexical",
      splits: ["test"],
      maxLen: 200,
    });
    expect(run.status).toBe("done");
    expect(run.maxLen).toBe(200);
    const state = (JSON.parse(ref.requests[before].body) as { state: string }).state;
    expect(state.length).toBeLessThan(long.content.length / 4);
    expect(state).toContain("parcel");
  });
});

describe("deleting what runs use", () => {
  it("refuses to delete an upload that runs use unless forced, which deletes the runs", async () => {
    expect(
      (await post(bench.app, "/api/datasets", (await import("./fixtures.js")).uploadBody(3, "doomed")))
        .statusCode,
    ).toBe(201);
    const run = await runToEnd(bench, { dataset: "doomed", serverId, model: "lexical", splits: ["train"] });
    const refused = await bench.app.inject({ method: "DELETE", url: "/api/datasets/doomed" });
    expect(refused.statusCode).toBe(409);
    expect(error(refused).code).toBe("dataset_in_use");
    const forced = await bench.app.inject({ method: "DELETE", url: "/api/datasets/doomed?force=true" });
    expect(forced.statusCode).toBe(204);
    expect((await bench.app.inject({ method: "GET", url: `/api/runs/${run.id}` })).statusCode).toBe(404);
    expect((await bench.app.inject({ method: "GET", url: "/api/datasets/doomed" })).statusCode).toBe(404);
  });
});

describe("a ServiceError stops the run", () => {
  it("stops at once with the scorer's message on a wrong key, asking no more than one request per worker", async () => {
    const keyed = await reference({ apiKey: "sk-right-key-000000" });
    try {
      const id = await addServer(bench.app, keyed.url, { apiKey: "sk-wrong-key-111111" });
      const run = await runToEnd(bench, {
        dataset: "tickets",
        serverId: id,
        model: "lexical",
        concurrency: 3,
      });
      expect(run.status).toBe("failed");
      expect(run.error).toContain("answered HTTP 401");
      expect(run.error).toContain("check the API key");
      expect(run.error).not.toContain("sk-wrong-key");
      expect(run.progress.done).toBe(0);
      expect(keyed.requests.length).toBeLessThanOrEqual(3);

      await bench.app.inject({
        method: "PATCH",
        url: `/api/servers/${id}`,
        payload: { apiKey: "sk-right-key-000000" },
      });
      const resumed = body<RunSummary>(await post(bench.app, `/api/runs/${run.id}/resume`));
      expect(resumed.error).toBeNull();
      await bench.engine.settle(run.id);
      const final = body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${run.id}` }));
      expect(final.status).toBe("done");
      expect(final.progress.done).toBe(40);
    } finally {
      await keyed.close();
    }
  });

  it("fails on a model the server does not have (HTTP 404)", async () => {
    const id = await addServer(bench.app, ref.url, { models: ["no-such-model"] });
    const run = await runToEnd(bench, {
      dataset: "tickets",
      serverId: id,
      model: "no-such-model",
      limit: 3,
      concurrency: 1,
    });
    expect(run.status).toBe("failed");
    expect(run.error).toContain("404");
  });
});
