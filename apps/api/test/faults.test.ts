import type { FaultPlan } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PredictionRow } from "../src/storage/types.js";
import { addDataset, addServer, reference, runToEnd, type TestBench, testBench } from "./helpers.js";

let bench: TestBench;

beforeAll(async () => {
  bench = await testBench();
  await addDataset(bench.app, 30);
});

afterAll(async () => {
  await bench.close();
});

/** Runs 6 test-split examples one at a time against a server with this fault plan. */
async function runWith(faults: FaultPlan, retries: number) {
  const ref = await reference({ faults });
  try {
    const serverId = await addServer(bench.app, ref.url, { retries, backoff: 0.001, timeout: 5 });
    const run = await runToEnd(bench, {
      dataset: "tickets",
      serverId,
      model: "lexical",
      splits: ["test"],
      limit: 6,
      concurrency: 1,
    });
    const rows = await bench.storage.listPredictions(run.id);
    return { run, rows, requests: ref.requests.length };
  } finally {
    await ref.close();
  }
}

const first = (rows: PredictionRow[]) => rows.filter((r) => r.exampleId === rows[0].exampleId);
const rest = (rows: PredictionRow[]) => rows.filter((r) => r.exampleId !== rows[0].exampleId);

describe("fault plans: each decision is answered or escalated with the contract's reason", () => {
  it("a burst of 429 within the retries is answered", async () => {
    const { run, rows, requests } = await runWith(
      { rules: [{ on: [1, 2], fault: { kind: "status", status: 429 } }] },
      2,
    );
    expect(run.status).toBe("done");
    expect(rows.every((r) => r.status !== "escalated")).toBe(true);
    expect(requests).toBe(6 + 2);
  });

  it("5xx beyond the retries escalates that example: did not answer after N attempts", async () => {
    const { run, rows } = await runWith(
      { rules: [{ on: [1, 2, 3], fault: { kind: "status", status: 503 } }] },
      2,
    );
    expect(run.status).toBe("done");
    for (const r of first(rows)) {
      expect(r.status).toBe("escalated");
      expect(r.reason).toMatch(/^the decision service did not answer after 3 attempts: .*503/);
      expect(r.probabilities).toBeNull();
    }
    expect(rest(rows).every((r) => r.status !== "escalated")).toBe(true);
    expect(run.progress.errors).toBe(1);
    expect(run.progress.escalated).toBe(3);
  });

  it("a reset connection is retried, then escalates", async () => {
    const { rows } = await runWith({ rules: [{ on: [1, 2], fault: { kind: "reset" } }] }, 1);
    for (const r of first(rows))
      expect(r.reason).toMatch(/^the decision service did not answer after 2 attempts/);
    expect(rest(rows).every((r) => r.status !== "escalated")).toBe(true);
  });

  it("a NaN probability escalates that item only: invalid decision output", async () => {
    const { run, rows } = await runWith({ rules: [{ on: [1], fault: { kind: "nan" } }] }, 2);
    const items = first(rows);
    const bad = items.filter((r) => r.status === "escalated");
    expect(bad.length).toBe(1);
    expect(bad[0].reason).toMatch(/^invalid decision output/);
    expect(items.filter((r) => r.status !== "escalated").length).toBe(2);
    expect(run.progress.errors).toBe(0);
  });

  it("a 422 escalates at once with the service's text, without retries", async () => {
    const { rows, requests } = await runWith(
      {
        rules: [
          { on: [1], fault: { kind: "status", status: 422, body: { detail: "unknown options: ['x']" } } },
        ],
      },
      2,
    );
    for (const r of first(rows)) {
      expect(r.status).toBe("escalated");
      expect(r.reason).toMatch(/^the decision service refused the request: HTTP 422/);
      expect(r.reason).toContain("unknown options");
    }
    expect(requests).toBe(6);
  });

  it("a mixed random plan leaves every decision answered, Unknown or escalated with a contract reason", async () => {
    const { run, rows } = await runWith(
      {
        seed: 7,
        rules: [
          { rate: 0.15, fault: { kind: "status", status: 429 } },
          { rate: 0.1, fault: { kind: "status", status: 500 } },
          { rate: 0.1, fault: { kind: "reset" } },
          { rate: 0.1, fault: { kind: "nan" } },
          { rate: 0.1, fault: { kind: "status", status: 422 } },
          { rate: 0.05, fault: { kind: "truncate" } },
        ],
      },
      1,
    );
    expect(run.status).toBe("done");
    expect(rows.length).toBe(18);
    const reasons =
      /^(the decision service did not answer after 2 attempts|the decision service refused the request|invalid decision output)/;
    for (const r of rows) {
      if (r.status === "escalated") expect(r.reason).toMatch(reasons);
      else expect(r.confidence).toBeGreaterThan(0);
    }
  });
});
