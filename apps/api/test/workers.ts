/**
 * Team-mode fixtures: an API instance on a test PostgreSQL database with no workers of its own, `workbench
 * worker` processes beside it (node --import tsx, as in production but from source), and waiting for a run.
 */

import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, expect } from "vitest";
import { startWorkbench, type Workbench } from "../src/cli/serve.js";
import { serveConfig } from "../src/config.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { type Child, workbench } from "./child.js";
import { body, post, reference, tempDir } from "./helpers.js";
import { type TestDatabase, testDatabase } from "./postgres.js";

/** What a team test file works with: a database, a reference server, an API instance without workers, workers. */
export interface TeamFixture {
  db: TestDatabase;
  ref: DecisionServerHandle;
  api: Awaited<ReturnType<typeof apiInstance>>;
  /** Worker processes the tests start (killed at the end). */
  children: Child[];
}

/**
 * Registers the fixtures of a team test file (before and after all its tests): a fresh database, a reference
 * server answering each request after `delayMs` (as a remote service would), an API-only instance.
 */
export function useTeam(delayMs: number): TeamFixture {
  const team = { children: [] as Child[] } as TeamFixture;
  beforeAll(async () => {
    team.db = await testDatabase();
    team.ref = await reference({ faults: { rules: [{ rate: 1, fault: { kind: "delay", ms: delayMs } }] } });
    team.api = await apiInstance(team.db.url, 0);
  }, 60_000);
  afterAll(async () => {
    for (const c of team.children) c.proc.kill("SIGKILL");
    await Promise.all(team.children.map((c) => c.exited));
    await team.api?.cleanup();
    await team.ref?.close();
    await team.db?.drop();
  });
  return team;
}

/** The secret key every process of a test team shares (a deployment sets one for all). */
const TEAM_KEY = "cd".repeat(32);

/**
 * An API instance on `url` hosting `workers` run workers (0: none, as an API-only instance); `env`: the
 * environment its settings read (WORKBENCH_REDIS_URL, WORKBENCH_QUEUE_LOCK_MS).
 */
export async function apiInstance(
  url: string,
  workers = 0,
  env: NodeJS.ProcessEnv = {},
): Promise<{ wb: Workbench; cleanup: () => Promise<void> }> {
  const tmp = tempDir("wb-team-");
  process.env.WORKBENCH_SECRET_KEY = TEAM_KEY;
  const config = serveConfig(
    { "data-dir": tmp.dir, port: "0", "no-reference": true, "database-url": url, workers: String(workers) },
    env,
  );
  const wb = await startWorkbench(config);
  return {
    wb,
    async cleanup() {
      await wb.close();
      tmp.cleanup();
    },
  };
}

/** Starts `workbench worker` on `url`; resolves once it says it is ready. */
export async function workerProcess(url: string, env: Record<string, string> = {}): Promise<Child> {
  const child = workbench(["worker", "--database-url", url, "--allow-private-servers"], {
    WORKBENCH_SECRET_KEY: TEAM_KEY,
    ...env,
  });
  const line = await child.firstLine;
  if (line !== "worker ready")
    throw new Error(`the worker said ${JSON.stringify(line)}; stderr:\n${child.stderr()}`);
  return child;
}

/** Starts a run of `dataset` on the lexical model through the API (201 expected); returns its id. */
export async function startRun(
  wb: Workbench,
  dataset: string,
  serverId: string,
  concurrency?: number,
): Promise<string> {
  const res = await post(wb.app, "/api/runs", { dataset, serverId, model: "lexical", concurrency });
  expect(res.statusCode, res.body).toBe(201);
  return body<RunSummary>(res).id;
}

/** The run's summary through the API. */
export async function summaryOf(wb: Workbench, id: string): Promise<RunSummary> {
  return body<RunSummary>(await wb.app.inject({ method: "GET", url: `/api/runs/${id}` }));
}

/** Polls the run until `until` holds (every 50 ms, at most `ms`); returns the summary that satisfied it. */
export async function waitFor(
  wb: Workbench,
  id: string,
  until: (s: RunSummary) => boolean,
  ms = 120_000,
): Promise<RunSummary> {
  const end = Date.now() + ms;
  for (;;) {
    const s = await summaryOf(wb, id);
    if (until(s)) return s;
    if (Date.now() > end)
      throw new Error(`run ${id} did not get there in ${ms} ms: ${JSON.stringify(s.progress)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
