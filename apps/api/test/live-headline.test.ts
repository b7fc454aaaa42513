/**
 * A running run's headline (and its request-time percentiles, when read from storage) are computed again only once
 * the run has grown by 5 %: on a million-example run each one reads every stored answer. A finished run's are
 * computed and stored.
 */

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RunEngine } from "../src/engine/engine.js";
import { SecretBox } from "../src/secrets/box.js";
import { openStorage, type SqliteStorage } from "../src/storage/sqlite.js";
import { storedRun } from "./fixtures.js";
import { tempDir } from "./helpers.js";
import { result } from "./storage-contract.js";

const tmp = tempDir("wb-live-headline-");
let storage: SqliteStorage;
let engine: RunEngine;

beforeAll(async () => {
  storage = openStorage(join(tmp.dir, "workbench.sqlite"));
  engine = new RunEngine({ storage, secrets: new SecretBox(randomBytes(32)) });
  await storage.insertRun(storedRun("run_live", { total: 5000 }));
});

afterAll(async () => {
  await storage.close();
  tmp.cleanup();
});

let next = 0;
async function store(n: number): Promise<void> {
  const writes: Promise<void>[] = [];
  for (let i = 0; i < n; i++, next++) {
    writes.push(storage.recordExample(result("run_live", `e${next}`, next, ["answered", "answered"])));
  }
  await Promise.all(writes);
}

/** The examples the headline counts (it pools the run's two items: two rows an example). */
const n = async () => ((await engine.summary("run_live")).headline?.n ?? 0) / 2;

describe("a running run's headline", () => {
  it("is kept until the run grows by 5 %, then computed again; a done run's is fresh", async () => {
    await store(1000);
    expect(await n()).toBe(1000);
    await store(52);
    expect(await n()).toBe(1000); // 52 more of 1,052: under 5 %, the last one still stands
    await store(1);
    expect(await n()).toBe(1053); // 53 of 1,053: 5 %
    await store(2);
    expect(await n()).toBe(1053);
    await store(955);
    await storage.updateRun("run_live", { status: "done" });
    expect(await n()).toBe(2010);
    expect((await storage.getStoredRun("run_live"))?.headline?.n).toBe(2 * 2010);
  });
});

describe("a running run's request times, read from storage (another process works on it)", () => {
  it("give percentiles kept until the run grows by 5 %, then read again; a stopped run's are fresh", async () => {
    await storage.insertRun(storedRun("run_lat", { total: 5000 }));
    let at = 0;
    const slow = async (count: number, ms: number) => {
      const writes: Promise<void>[] = [];
      for (let i = 0; i < count; i++, at++) {
        writes.push(storage.recordExample({ ...result("run_lat", `l${at}`, at, ["answered"]), ms }));
      }
      await Promise.all(writes);
    };
    const p99 = async () => (await engine.summary("run_lat")).progress.latency.p99;
    await slow(1000, 10);
    expect(await p99()).toBe(10);
    await slow(52, 5000); // 52 of 1,052: under 5 %, the last percentiles still stand
    expect(await p99()).toBe(10);
    await slow(1, 5000); // 53 of 1,053: read again
    expect(await p99()).toBe(5000);
    await slow(20, 9000); // 20 of 1,073: kept
    expect(await p99()).toBe(5000);
    await storage.updateRun("run_lat", { status: "stopped" });
    expect(await p99()).toBe(9000);
  });
});

describe("a finished run's stats", () => {
  it("are read from its answers once, at its first summary, stored, and used only while it is done", async () => {
    await storage.insertRun(storedRun("run_stats", { total: 3 }));
    for (let i = 0; i < 3; i++) await storage.recordExample(result("run_stats", `s${i}`, i, ["answered"]));
    const running = await engine.summary("run_stats");
    expect(running.servedBy).toEqual(["m-2"]);
    await storage.updateRun("run_stats", { status: "done" });
    const first = await engine.summary("run_stats");
    expect(first.progress.latency).toEqual({ p50: 20, p90: 30, p99: 30 });
    expect((await storage.getStoredRun("run_stats"))?.stats).toEqual({
      latency: first.progress.latency,
      servedBy: ["m-2"],
    });
    // the answers gone from under it: a summary that read them would say no latency and no model
    const db = new Database(join(tmp.dir, "workbench.sqlite"));
    db.prepare("DELETE FROM run_examples WHERE run_id = ?").run("run_stats");
    db.close();
    const again = await engine.summary("run_stats");
    expect(again.progress.latency).toEqual(first.progress.latency);
    expect(again.servedBy).toEqual(["m-2"]);
    // a run that is not done reads its answers (a resume also clears the stored stats)
    await storage.updateRun("run_stats", { status: "running" });
    const resumed = await engine.summary("run_stats");
    expect(resumed.servedBy).toEqual([]);
    expect(resumed.progress.latency).toEqual({ p50: 0, p90: 0, p99: 0 });
  });

  it("are not stored onto a run resumed while they were read", async () => {
    await storage.insertRun(storedRun("run_raced", { total: 2 }));
    for (let i = 0; i < 2; i++) await storage.recordExample(result("run_raced", `r${i}`, i, ["answered"]));
    await storage.updateRun("run_raced", { status: "done", finishedAt: "2100-01-01T00:00:00.000Z" });
    // another process resumes the run while this one reads the served models of its first summary
    const served = vi.spyOn(storage, "servedModels").mockImplementationOnce(async (id) => {
      await storage.updateRun(id, { status: "running", finishedAt: null, stats: null, headline: null });
      return ["m-2"];
    });
    const summary = await engine.summary("run_raced");
    served.mockRestore();
    expect(summary.status).toBe("done");
    const stored = await storage.getStoredRun("run_raced");
    expect(stored?.status).toBe("running");
    expect(stored?.stats).toBeNull();
    expect(stored?.headline).toBeNull();
  });
});
