/**
 * Two API instances on one database, a worker each: a run started on one is followed live on the other (its event stream hears progress through LISTEN/NOTIFY and ends with the run), and cancelled from the
 * other (the worker stops within its status check, about a second).
 */

import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Progress, RunSummary } from "../src/shapes/runs.js";
import { addDataset, addServer, reference } from "./helpers.js";
import { type TestDatabase, testDatabase } from "./postgres.js";
import { readEvents } from "./sse.js";
import { apiInstance, startRun, summaryOf, waitFor } from "./workers.js";

let db: TestDatabase;
let ref: DecisionServerHandle;
let a: Awaited<ReturnType<typeof apiInstance>>;
let b: Awaited<ReturnType<typeof apiInstance>>;
let serverId: string;

beforeAll(async () => {
  db = await testDatabase();
  ref = await reference({ faults: { rules: [{ rate: 1, fault: { kind: "delay", ms: 10 } }] } });
  a = await apiInstance(db.url, 1);
  b = await apiInstance(db.url, 1);
  await addDataset(a.wb.app, 1800, "tickets_live");
  serverId = await addServer(a.wb.app, ref.url);
}, 60_000);

afterAll(async () => {
  await a?.cleanup();
  await b?.cleanup();
  await ref?.close();
  await db?.drop();
});

describe("runs across API instances", () => {
  it("the other instance streams the run's progress and its end", async () => {
    const id = await startRun(a.wb, "tickets_live", serverId, 4);
    const { status, events } = await readEvents(`${b.wb.url}/api/runs/${id}/events`);
    expect(status).toBe(200);
    const heard = events.filter((e) => e.event === "progress").map((e) => e.data as Progress);
    const progress = heard.map((p) => p.done);
    // progress heard while the run went on elsewhere, in order
    expect(progress.filter((d) => d > 0 && d < 1200).length).toBeGreaterThanOrEqual(3);
    expect(progress).toEqual([...progress].sort((x, y) => x - y));
    const last = events.at(-1);
    expect(last?.event).toBe("done");
    expect(last?.data).toMatchObject({ id, status: "done", progress: { done: 1200, total: 1200 } });
    // two workers shared it; the live rate is the run's (a sum of worker times would show about half)
    const final = last?.data as RunSummary;
    const seconds = (Date.parse(final.finishedAt ?? "") - Date.parse(final.startedAt ?? "")) / 1000;
    const live = heard.filter((p) => p.done > 0 && p.done < 1200).at(-1);
    expect(live?.examplesPerSecond).toBeGreaterThan((0.7 * 1200) / seconds);
  }, 60_000);

  it("the other instance cancels it; the worker stops asking", async () => {
    const id = await startRun(a.wb, "tickets_live", serverId, 2);
    await waitFor(b.wb, id, (s) => s.progress.done >= 20, 30_000);
    // running on the workers: a resume would queue its chunks twice
    const twice = await b.wb.app.inject({
      method: "POST",
      url: `/api/runs/${id}/resume`,
      headers: { "x-workbench": "1" },
    });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe("run_running");
    const res = await b.wb.app.inject({
      method: "POST",
      url: `/api/runs/${id}/cancel`,
      headers: { "x-workbench": "1" },
    });
    expect(res.statusCode, res.body).toBe(200);
    // the worker sees it within its check (1 s), then only answers in flight are stored
    await new Promise((r) => setTimeout(r, 1500));
    const settled = (await summaryOf(b.wb, id)).progress.done;
    const asked = ref.requests.length;
    await new Promise((r) => setTimeout(r, 1000));
    const later = await summaryOf(a.wb, id);
    expect(later.status).toBe("cancelled");
    expect(later.progress.done).toBe(settled);
    expect(later.progress.done).toBeLessThan(1200);
    expect(ref.requests.length).toBe(asked);
    // resumed, it asks only what is not stored, each once
    const resumed = await a.wb.app.inject({
      method: "POST",
      url: `/api/runs/${id}/resume`,
      headers: { "x-workbench": "1" },
    });
    expect(resumed.statusCode, resumed.body).toBe(200);
    const done = await waitFor(a.wb, id, (s) => s.status !== "running", 60_000);
    expect(done).toMatchObject({ status: "done", progress: { done: 1200 } });
    expect(ref.requests.length - asked).toBe(1200 - later.progress.done);
  }, 60_000);
});
