import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxUnstored } from "../src/engine/job.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { openStorage } from "../src/storage/sqlite.js";
import type { PredictionRow } from "../src/storage/types.js";
import { json, listeningUrl, startRunOverHttp, workbench } from "./child.js";
import { syntheticExamples, uploadBody } from "./fixtures.js";
import { addServer, reference, requestsPerState, runToEnd, tempDir, testBench } from "./helpers.js";

const COUNT = 60;
const CONCURRENCY = 2;
const tmp = tempDir();
let slow: DecisionServerHandle;
let plain: DecisionServerHandle;

beforeAll(async () => {
  slow = await reference({ faults: { rules: [{ rate: 1, fault: { kind: "delay", ms: 100 } }] } });
  plain = await reference();
});

afterAll(async () => {
  await slow.close();
  await plain.close();
  tmp.cleanup();
});

/** What must be identical between two runs: each decision, without timings. */
function decisions(rows: PredictionRow[]): string[] {
  return rows
    .map((r) =>
      JSON.stringify([
        r.exampleId,
        r.item,
        r.split,
        r.gold,
        r.status,
        r.answer,
        r.confidence,
        r.probabilities,
        r.logits,
        r.unknown,
        r.reason,
      ]),
    )
    .sort();
}

describe("a SIGKILL in the middle of a run", () => {
  it("loses no answered example, asks none of them twice, and finishes identical to an uninterrupted run", async () => {
    const dataDir = join(tmp.dir, "data");
    const env = { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_SECRET_KEY: randomBytes(32).toString("hex") };
    const first = workbench(["serve", "--port", "0", "--no-reference"], env);
    const url = listeningUrl(await first.firstLine);
    const run = await startRunOverHttp<RunSummary>(url, {
      serverUrl: slow.url,
      upload: uploadBody(COUNT),
      dataset: "tickets",
      concurrency: CONCURRENCY,
    });
    for (;;) {
      const now = await json<RunSummary>(fetch(`${url}/api/runs/${run.id}`));
      if (now.progress.done >= 12) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    first.proc.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    const db = new Database(join(dataDir, "workbench.sqlite"), { readonly: true });
    const storedBefore = new Set(
      db.prepare("SELECT example_id FROM run_examples WHERE run_id = ?").pluck().all(run.id) as string[],
    );
    const statusBefore = db.prepare("SELECT status FROM runs WHERE id = ?").pluck().get(run.id);
    db.close();
    expect(statusBefore).toBe("running");
    expect(storedBefore.size).toBeGreaterThanOrEqual(12);
    expect(storedBefore.size).toBeLessThan(COUNT);

    const second = workbench(["serve", "--port", "0", "--no-reference"], env);
    const url2 = listeningUrl(await second.firstLine);
    let final: RunSummary;
    for (;;) {
      final = await json<RunSummary>(fetch(`${url2}/api/runs/${run.id}`));
      if (final.status !== "running") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(second.stderr()).toContain(
      `run ${run.id} resumed (${storedBefore.size} of ${COUNT} already stored)`,
    );

    expect(final.status).toBe("done");
    expect(final.progress.done).toBe(COUNT);
    expect(final.progress.answered + final.progress.unknown + final.progress.escalated).toBe(COUNT * 3);

    // Requests the reference server received, per example.
    const counts = requestsPerState(slow);
    const examples = syntheticExamples(COUNT);
    const askedTwice: string[] = [];
    for (const e of examples) {
      const n = counts.get(e.state as string) ?? 0;
      if (storedBefore.has(e.id as string)) expect(n, `stored example ${e.id}`).toBe(1);
      else {
        expect(n, `example ${e.id}`).toBeGreaterThanOrEqual(1);
        expect(n, `example ${e.id}`).toBeLessThanOrEqual(2);
        if (n === 2) askedTwice.push(e.id as string);
      }
    }
    // Only requests in flight at the kill, and answers still waiting for their commit, can have been sent again.
    expect(askedTwice.length).toBeLessThanOrEqual(CONCURRENCY + maxUnstored(CONCURRENCY));

    // The same run, never interrupted, against a server without the delay.
    const bench = await testBench();
    try {
      const res = await bench.app.inject({
        method: "POST",
        url: "/api/datasets",
        payload: uploadBody(COUNT),
      });
      expect(res.statusCode).toBe(201);
      const serverId = await addServer(bench.app, plain.url);
      const clean = await runToEnd(bench, {
        dataset: "tickets",
        serverId,
        model: "lexical",
        splits: ["train", "calibration", "test"],
        concurrency: CONCURRENCY,
      });
      expect(clean.status).toBe("done");
      const resumedStorage = openStorage(join(dataDir, "workbench.sqlite"));
      const resumedRows = await resumedStorage.listPredictions(run.id);
      await resumedStorage.close();
      const cleanRows = await bench.storage.listPredictions(clean.id);
      expect(resumedRows.length).toBe(COUNT * 3);
      expect(decisions(resumedRows)).toEqual(decisions(cleanRows));
      expect(resumedRows.map((r) => r.exampleId)).toEqual(cleanRows.map((r) => r.exampleId));
    } finally {
      await bench.close();
    }
  });
});
