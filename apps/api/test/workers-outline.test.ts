/**
 * A worker reads a run's outline (which dataset rows are its examples) once, at its first chunk of the run, not at
 * every chunk (918 ms a chunk at 1,000,000 examples); a dataset that changes under the run still fails it at the
 * next chunk, outline kept or not. The run's headline is left to the API, which computes it from the rows it kept
 * while following the run.
 */

import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AnalysisData } from "../src/analysis/data.js";
import { addDataset, addServer, reference } from "./helpers.js";
import { type TestDatabase, testDatabase } from "./postgres.js";
import { apiInstance, startRun, waitFor } from "./workers.js";

let db: TestDatabase;
let ref: DecisionServerHandle;
let a: Awaited<ReturnType<typeof apiInstance>>;
let serverId: string;

beforeAll(async () => {
  db = await testDatabase();
  ref = await reference({ faults: { rules: [{ rate: 1, fault: { kind: "delay", ms: 5 } }] } });
  a = await apiInstance(db.url, 1);
  await addDataset(a.wb.app, 1800, "tickets_kept");
  await addDataset(a.wb.app, 1800, "tickets_changed");
  serverId = await addServer(a.wb.app, ref.url);
}, 60_000);

afterAll(async () => {
  await a?.cleanup();
  await ref?.close();
  await db?.drop();
});

describe("a worker's outline of a run", () => {
  it("is read once a run, not once a chunk", async () => {
    const reads = vi.spyOn(a.wb.storage, "uploadOutline");
    const id = await startRun(a.wb, "tickets_kept", serverId, 8);
    const done = await waitFor(a.wb, id, (s) => s.status !== "running" && s.status !== "queued", 60_000);
    expect(done.status).toBe("done");
    // 1,200 examples in chunks of 100: 12 chunks; one read when the run started, one at the worker's first chunk
    expect(done.progress.done).toBe(1200);
    expect(reads.mock.calls.length).toBe(2);
    reads.mockRestore();
    // its headline, computed by the API from the rows it kept while the run was read live, is stored and equals
    // one computed afresh from every stored decision
    const stored = await a.wb.storage.getStoredRun(id);
    expect(stored?.headline?.n).toBeGreaterThan(0);
    expect(stored?.headline).toEqual(await new AnalysisData(a.wb.storage).headline(id));
    expect(done.headline).toEqual(stored?.headline);
  }, 90_000);

  it("does not hide a dataset that changed since the run started", async () => {
    const id = await startRun(a.wb, "tickets_changed", serverId, 2);
    await waitFor(a.wb, id, (s) => s.progress.done >= 150, 60_000);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query("UPDATE datasets SET hash = 'another' WHERE name = 'tickets_changed'");
    await client.end();
    const ended = await waitFor(a.wb, id, (s) => s.status !== "running", 60_000);
    expect(ended.status).toBe("failed");
    expect(ended.error).toContain('the dataset "tickets_changed" changed since the run started');
    expect(ended.progress.done).toBeLessThan(1200);
  }, 90_000);
});
