/**
 * The run queue on Redis (WORKBENCH_REDIS_URL) through the same code: a throwaway redis-server (Debian's, on a
 * free port of 127.0.0.1, no persistence, stopped at the end), an API instance whose worker takes the run's
 * chunks from it; the database keeps the data and holds no queue of its own.
 */

import { type ChildProcess, spawn } from "node:child_process";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveConfig } from "../src/config.js";
import { addDataset, addServer, reference, tempDir } from "./helpers.js";
import { type TestDatabase, testDatabase } from "./postgres.js";
import { freePort } from "./postgres-cluster.js";
import { apiInstance, startRun, waitFor } from "./workers.js";

/** Starts redis-server; resolves with its URL once it accepts connections. */
async function startRedis(dir: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
  ];
  const proc = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    proc.once("error", (err) =>
      reject(new Error(`redis-server could not start (install Debian's redis-server): ${err.message}`)),
    );
    proc.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    proc.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("Ready to accept connections")) resolve();
    });
  });
  return { url: `redis://127.0.0.1:${port}/0`, proc };
}

let db: TestDatabase;
let ref: DecisionServerHandle;
let redis: { url: string; proc: ChildProcess };
let api: Awaited<ReturnType<typeof apiInstance>>;
const tmp = tempDir("wb-redis-");

beforeAll(async () => {
  db = await testDatabase();
  ref = await reference();
  redis = await startRedis(tmp.dir);
  api = await apiInstance(db.url, 1, { WORKBENCH_REDIS_URL: redis.url });
}, 60_000);

afterAll(async () => {
  await api?.cleanup();
  redis?.proc.kill("SIGTERM");
  await ref?.close();
  await db?.drop();
  tmp.cleanup();
});

describe("the run queue on Redis", () => {
  it("refuses a Redis URL that is not one", () => {
    expect(() =>
      serveConfig({ "database-url": db.url }, { WORKBENCH_REDIS_URL: "http://cache:6379" }),
    ).toThrow(/redis:\/\/ or rediss:\/\//);
  });

  it("runs a run's chunks from Redis; the database holds no queue", async () => {
    const { wb } = api;
    await addDataset(wb.app, 450, "tickets_redis");
    const serverId = await addServer(wb.app, ref.url);
    const id = await startRun(wb, "tickets_redis", serverId);
    const done = await waitFor(wb, id, (s) => s.status !== "running", 60_000);
    expect(done.status, done.error ?? "").toBe("done");
    expect(done.progress.done).toBe(300);
    // the queue's jobs went through Redis: the chunks of 300 examples (100 each), removed once done
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = 'workbench_queue'",
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  }, 90_000);
});
