/** Test helpers: a workbench on a real SQLite file in a temp folder, reference servers, HTTP shortcuts. */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type DecisionServerHandle,
  type DecisionServerOptions,
  startDecisionServer,
} from "@decision-workbench/decision-server";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { buildApp } from "../src/app.js";
import { RunEngine } from "../src/engine/engine.js";
import { SecretBox } from "../src/secrets/box.js";
import { outboundPolicyOf } from "../src/servers/outbound.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { openPostgresStorage } from "../src/storage/postgres/postgres.js";
import { openStorage, type SqliteStorage } from "../src/storage/sqlite.js";
import { uploadBody } from "./fixtures.js";
import { testDatabase } from "./postgres.js";

/** A temp folder removed by `cleanup`. */
export function tempDir(prefix = "wb-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A workbench app over a fresh SQLite file (not listening unless `listen` is called). */
export interface TestBench {
  app: FastifyInstance;
  storage: SqliteStorage;
  engine: RunEngine;
  secrets: SecretBox;
  dir: string;
  /** Listens on 127.0.0.1:0 and returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** Starts a test workbench. */
export async function testBench(
  opts: {
    token?: string;
    webDir?: string;
    dir?: string;
    allowHosts?: string[];
    allowPrivateServers?: boolean;
  } = {},
): Promise<TestBench> {
  const tmp = opts.dir ? { dir: opts.dir, cleanup: () => {} } : tempDir();
  // the api-postgres project runs the HTTP tests that use the storage interface only on a fresh PostgreSQL database
  const db = process.env.WORKBENCH_TEST_STORE === "postgres" ? await testDatabase() : undefined;
  const storage = db
    ? ((await openPostgresStorage(db.url)) as unknown as SqliteStorage)
    : openStorage(join(tmp.dir, "workbench.sqlite"));
  const secrets = new SecretBox(randomBytes(32));
  const engine = new RunEngine({
    storage,
    secrets,
    outbound: outboundPolicyOf(Boolean(opts.token), opts.allowPrivateServers === true),
  });
  const app = await buildApp({
    storage,
    engine,
    secrets,
    token: opts.token,
    webDir: opts.webDir,
    allowHosts: opts.allowHosts,
  });
  return {
    app,
    storage,
    engine,
    secrets,
    dir: tmp.dir,
    async listen() {
      await app.listen({ host: "127.0.0.1", port: 0 });
      const a = app.server.address();
      return `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
    },
    async close() {
      await engine.close();
      await app.close();
      await storage.close();
      await db?.drop();
      tmp.cleanup();
    },
  };
}

/**
 * A listening test bench for the tests of a file or a describe block: started before them (handed to `use` with
 * its base URL), closed after them.
 */
export function listeningBench(
  opts: Parameters<typeof testBench>[0],
  use: (bench: TestBench, url: string) => void | Promise<void>,
): void {
  let bench: TestBench | undefined;
  beforeAll(async () => {
    bench = await testBench(opts);
    await use(bench, await bench.listen());
  });
  afterAll(async () => bench?.close());
}

/** A reference server with the lexical model only (starts at once); options pass through. */
export function reference(opts: DecisionServerOptions = {}): Promise<DecisionServerHandle> {
  return startDecisionServer({ port: 0, checkpoints: false, ...opts });
}

/** JSON body of an injected response. */
export function body<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  return JSON.parse(res.body) as T;
}

/** POST JSON through inject. */
export function post(app: FastifyInstance, url: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return app.inject({
    method: "POST",
    url,
    // The web app's header: a bodiless POST without it is refused as one another site could send.
    headers: { "x-workbench": "1" },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** Registers a server and returns its id. */
export async function addServer(
  app: FastifyInstance,
  baseUrl: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await post(app, "/api/servers", {
    name: "test reference",
    baseUrl,
    models: ["lexical"],
    deterministic: true,
    backoff: 0.001,
    timeout: 10,
    ...extra,
  });
  if (res.statusCode !== 201) throw new Error(`adding a server failed: ${res.statusCode} ${res.body}`);
  return body<{ id: string }>(res).id;
}

/** Uploads the synthetic dataset. */
export async function addDataset(app: FastifyInstance, count: number, name = "tickets"): Promise<void> {
  const res = await post(app, "/api/datasets", uploadBody(count, name));
  if (res.statusCode !== 201) throw new Error(`uploading failed: ${res.statusCode} ${res.body}`);
}

/** Starts a run and waits until it has settled; returns the final summary. */
export async function runToEnd(bench: TestBench, input: Record<string, unknown>): Promise<RunSummary> {
  const res = await post(bench.app, "/api/runs", input);
  if (res.statusCode !== 201) throw new Error(`starting a run failed: ${res.statusCode} ${res.body}`);
  const run = body<RunSummary>(res);
  await bench.engine.settle(run.id);
  return body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${run.id}` }));
}

/** Number of requests a reference server received per example state. */
export function requestsPerState(server: DecisionServerHandle): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of server.requests) {
    const state = (JSON.parse(r.body) as { state: unknown }).state;
    const key = typeof state === "string" ? state : JSON.stringify(state);
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** What a servers test file works with: a test bench and two reference servers, the second requiring a key. */
export interface ServersFixture {
  bench: TestBench;
  ref: DecisionServerHandle;
  keyed: DecisionServerHandle;
}

/** Registers the set-up (before the file's tests) and tear-down (after them) of a ServersFixture needing `key`. */
export function useServersFixture(key: string): ServersFixture {
  const f = {} as ServersFixture;
  beforeAll(async () => {
    f.bench = await testBench();
    f.ref = await reference();
    f.keyed = await reference({ apiKey: key });
  });
  afterAll(async () => {
    await f.bench?.close();
    await f.ref?.close();
    await f.keyed?.close();
  });
  return f;
}
