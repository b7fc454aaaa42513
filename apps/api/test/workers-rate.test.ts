/**
 * A server's rate limit holds for all workers together: two `workbench worker` processes on one run against a
 * server limited to 50 requests a second (3,000 a minute) send, together, 50 a second within 10 % (the reference
 * server's arrival times). Each alone would send its full 50 (test/rate-shared.test.ts shows local lanes double it).
 */

import { describe, expect, it } from "vitest";
import { addDataset, addServer } from "./helpers.js";
import { startRun, useTeam, waitFor, workerProcess } from "./workers.js";

// 20 ms a request: concurrency 8 per worker could send 400 a second each without the limit
const team = useTeam(20);

describe("rate limits across workers", () => {
  it("two workers together keep a server's 50 requests a second", async () => {
    const { wb } = team.api;
    // 900 examples: 600 asked, 12 s at 50 a second; chunks of 100 keep both workers busy
    await addDataset(wb.app, 900, "tickets_rate");
    const serverId = await addServer(wb.app, team.ref.url, { requestsPerMinute: 3000 });
    team.children.push(...(await Promise.all([workerProcess(team.db.url), workerProcess(team.db.url)])));
    const id = await startRun(wb, "tickets_rate", serverId, 8);
    const done = await waitFor(wb, id, (s) => s.status !== "running", 90_000);
    expect(done.status, done.error ?? "").toBe("done");
    expect(done.progress.done).toBe(600);
    // both workers took chunks (each logs the chunks it asks), and none failed
    for (const c of team.children) {
      expect(c.stderr()).toMatch(/examples \d+-\d+, \d+ to ask/);
      expect(c.stderr()).not.toMatch(/failed/);
    }
    const times = team.ref.requests.map((r) => r.at).sort((x, y) => x - y);
    expect(times.length).toBe(600);
    // the steady rate: from 1 s after the first request (a burst of one second's worth is allowed) to the last
    const from = times[0] + 1000;
    const steady = times.filter((t) => t >= from);
    const rate = (steady.length - 1) / ((steady.at(-1)! - steady[0]) / 1000);
    expect(rate).toBeGreaterThan(45);
    expect(rate).toBeLessThan(55);
  }, 120_000);
});
