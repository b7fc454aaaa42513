/** A workbench on a real SQLite file in a temp folder (the core's buildApp, engine and storage), for route tests. */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import { RunEngine } from "../../src/engine/engine.js";
import { SecretBox } from "../../src/secrets/box.js";
import type { RunSummary } from "../../src/shapes/runs.js";
import { openStorage, type SqliteStorage } from "../../src/storage/sqlite.js";

/** The app, its storage and engine, listening on 127.0.0.1. */
export interface Workbench {
  app: FastifyInstance;
  storage: SqliteStorage;
  engine: RunEngine;
  dir: string;
  url: string;
  get<T = Record<string, unknown>>(
    path: string,
  ): Promise<{ status: number; body: T; text: string; headers: Headers }>;
  post<T = Record<string, unknown>>(
    path: string,
    body: unknown,
  ): Promise<{ status: number; body: T; text: string }>;
  /** Adds the decision server at `baseUrl` (deterministic, serving `workbench-latest`) through the API; its id. */
  addServer(baseUrl: string): Promise<string>;
  /** Creates a run through the API and waits for it to settle. */
  run(input: Record<string, unknown>): Promise<RunSummary>;
  close(): Promise<void>;
}

async function answer<T>(
  res: Response,
): Promise<{ status: number; body: T; text: string; headers: Headers }> {
  const text = await res.text();
  let body: T;
  try {
    body = JSON.parse(text) as T;
  } catch {
    body = undefined as T;
  }
  return { status: res.status, body, text, headers: res.headers };
}

/** Starts a workbench over a fresh data folder (or the one given). */
export async function startWorkbench(dir?: string): Promise<Workbench> {
  const folder = dir ?? mkdtempSync(join(tmpdir(), "wb-analysis-"));
  const storage = openStorage(join(folder, "workbench.sqlite"));
  const secrets = new SecretBox(randomBytes(32));
  const engine = new RunEngine({ storage, secrets });
  const app = await buildApp({ storage, engine, secrets });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const wb: Workbench = {
    app,
    storage,
    engine,
    dir: folder,
    url,
    get: async (path) => answer(await fetch(url + path)),
    post: async (path, body) =>
      answer(
        await fetch(url + path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: typeof body === "string" ? body : JSON.stringify(body),
        }),
      ),
    async addServer(baseUrl) {
      const res = await wb.post<{ id: string }>("/api/servers", {
        name: "reference",
        baseUrl,
        models: ["workbench-latest"],
        deterministic: true,
      });
      if (res.status !== 201) throw new Error(`adding the server failed: ${res.status} ${res.text}`);
      return res.body.id;
    },
    async run(input) {
      const res = await wb.post<RunSummary>("/api/runs", input);
      if (res.status !== 201) throw new Error(`starting a run failed: ${res.status} ${res.text}`);
      await engine.settle(res.body.id);
      return (await wb.get<RunSummary>(`/api/runs/${res.body.id}`)).body;
    },
    async close() {
      await engine.close();
      await app.close();
      await storage.close();
      if (!dir) rmSync(folder, { recursive: true, force: true });
    },
  };
  return wb;
}
