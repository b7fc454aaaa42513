/**
 * A 5,000-example run on two `workbench worker` processes; one is killed with SIGKILL mid-run. Its chunk goes back
 * to the queue once its lock expires and the other worker finishes it: every example is stored once, at most one
 * chunk's worth is asked again (the reference server's request log), and the report equals an uninterrupted
 * run's.
 */

import { describe, expect, it } from "vitest";
import type { Workbench } from "../src/cli/serve.js";
import { addDataset, addServer, requestsPerState } from "./helpers.js";
import { startRun, summaryOf, useTeam, waitFor, workerProcess } from "./workers.js";

// 20 ms a request: two workers at concurrency 8 answer ~800 examples a second, time enough to kill one mid-run
const team = useTeam(20);

async function report(wb: Workbench, id: string, item: string): Promise<string> {
  const res = await wb.app.inject({ method: "GET", url: `/api/runs/${id}/report?item=${item}&split=all` });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

describe("run workers", () => {
  it("a worker killed mid-run loses nothing and stores nothing twice", async () => {
    const { wb } = team.api;
    // 7,500 examples: 5,000 in the calibration and test splits a run asks by default
    await addDataset(wb.app, 7500, "tickets_team");
    const serverId = await addServer(wb.app, team.ref.url);
    const lock = { WORKBENCH_QUEUE_LOCK_MS: "2000" };
    const [a, b] = await Promise.all([workerProcess(team.db.url, lock), workerProcess(team.db.url, lock)]);
    team.children.push(a, b);
    const id = await startRun(wb, "tickets_team", serverId, 8);
    const before = await waitFor(wb, id, (s) => s.progress.done >= 1500, 60_000);
    expect(before.status).toBe("running");
    a.proc.kill("SIGKILL");
    await a.exited;
    const killedAt = (await summaryOf(wb, id)).progress.done;
    expect(killedAt).toBeLessThan(5000);
    const done = await waitFor(wb, id, (s) => s.status !== "running", 120_000);
    expect(done.status, done.error ?? "").toBe("done");
    expect(done.progress).toMatchObject({ total: 5000, done: 5000 });
    // every example asked, and asked again at most one chunk's worth (100 of 5,000: the dead worker's chunk)
    const asked = requestsPerState(team.ref);
    expect(asked.size).toBe(5000);
    const again = [...asked.values()].reduce((s, n) => s + n - 1, 0);
    expect(again).toBeLessThanOrEqual(100);
    expect(b.stderr()).not.toMatch(/failed/);

    // the same run uninterrupted, on the surviving worker: the same report
    const control = await startRun(wb, "tickets_team", serverId, 8);
    const controlDone = await waitFor(wb, control, (s) => s.status !== "running", 120_000);
    expect(controlDone.progress.done).toBe(5000);
    for (const item of ["team", "urgent", "topics"]) {
      expect(await report(wb, id, item)).toBe(await report(wb, control, item));
    }
    expect(done.headline).toEqual(controlDone.headline);
  }, 240_000);
});
