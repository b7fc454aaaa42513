/**
 * startWorkbench: the data folder, the secret key, the database, the embedded reference server, the app and
 * the run engine, started together; runs left `running` by a process that is gone are resumed.
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type DecisionServerHandle, startDecisionServer } from "@decision-workbench/decision-server";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../app.js";
import { warmBundled } from "../catalog/catalog.js";
import { checkExposure, DB_FILE, type ServeConfig, tokenlessHost } from "../config.js";
import { newId, RunEngine } from "../engine/engine.js";
import type { Team } from "../engine/team.js";
import { SecretBox } from "../secrets/box.js";
import { loadSecretKey } from "../secrets/key.js";
import { secretContext } from "../servers/connect.js";
import { outboundPolicyOf } from "../servers/outbound.js";
import { checkServerInput, displayBaseUrl, serverRow } from "../servers/view.js";
import { openStorage } from "../storage/sqlite.js";
import type { WorkbenchStorage } from "../storage/types.js";

/** How the embedded reference server is registered on first start. */
export const EMBEDDED_SERVER = {
  name: "Reference server (embedded)",
  models: ["workbench-latest", "bayes-1", "bayes-2", "lexical"],
  deterministic: true,
} as const;

/** A running workbench. */
export interface Workbench {
  /** "http://HOST:PORT" */
  url: string;
  port: number;
  app: FastifyInstance;
  storage: WorkbenchStorage;
  engine: RunEngine;
  /** The embedded reference server, when started. */
  reference?: DecisionServerHandle;
  /** Runs resumed at start-up. */
  resumed: string[];
  /** Stops taking examples, stores answers in flight, closes the app, the reference server and the database. */
  close(): Promise<void>;
}

/** Options beyond the config. */
export interface StartOptions {
  /** Where progress messages go (default: nowhere). */
  log?: (message: string) => void;
  /** Fastify's logger option (default: off). */
  logger?: Parameters<typeof buildApp>[0]["logger"];
}

function portOf(url: string): number | undefined {
  try {
    const p = new URL(url).port;
    return p ? Number(p) : undefined;
  } catch {
    return undefined;
  }
}

async function startReference(
  config: ServeConfig,
  previous: string | undefined,
): Promise<DecisionServerHandle> {
  const wanted = config.reference.port || (previous ? portOf(previous) : undefined) || 0;
  try {
    return await startDecisionServer({ port: wanted, host: "127.0.0.1" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE" && !config.reference.port && wanted !== 0) {
      return startDecisionServer({ port: 0, host: "127.0.0.1" });
    }
    throw err;
  }
}

/** Registers the embedded reference server on first start, and points it at this start's address. */
async function registerEmbedded(storage: WorkbenchStorage, box: SecretBox, url: string): Promise<void> {
  const existing = (await storage.listServers()).find((s) => s.embedded);
  if (!existing) {
    const input = {
      name: EMBEDDED_SERVER.name,
      baseUrl: url,
      models: [...EMBEDDED_SERVER.models],
      deterministic: true,
    };
    await storage.insertServer(serverRow(newId("srv"), input, checkServerInput(input), box, true));
    return;
  }
  if (existing.baseUrl === displayBaseUrl(url)) return;
  await storage.updateServer({
    ...existing,
    baseUrl: displayBaseUrl(url),
    baseUrlSecret: box.encrypt(url, secretContext(existing.id, "baseUrl")),
    endpoint: checkServerInput({ name: existing.name, baseUrl: url, models: existing.models }),
  });
}

/** Starts the workbench and listens; resolves once it listens and interrupted runs are resumed. */
export async function startWorkbench(config: ServeConfig, opts: StartOptions = {}): Promise<Workbench> {
  const log = opts.log ?? (() => {});
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const box = new SecretBox(loadSecretKey(config.dataDir));
  // PostgreSQL when a database URL is given (shared by API instances); else the data folder's SQLite file. The
  // modules of PostgreSQL and of the team (queue, shared lanes) load only then: on SQLite they would add 27 MB of
  // resident memory and 144 ms to start-up.
  const storage = config.databaseUrl
    ? await (await import("../storage/postgres/postgres.js")).openPostgresStorage(config.databaseUrl)
    : openStorage(join(config.dataDir, DB_FILE));
  let reference: DecisionServerHandle | undefined;
  let app: FastifyInstance | undefined;
  let engine: RunEngine | undefined;
  let team: Team | undefined;
  try {
    checkExposure(config, await storage.hasActiveTokens());
    if (config.reference.enabled) {
      const previous = (await storage.listServers()).find((s) => s.embedded)?.baseUrl;
      reference = await startReference(config, previous);
      await registerEmbedded(storage, box, reference.url);
      log(`reference server at ${reference.url}`);
    }
    // guarded: a shared token, or an address beyond 127.0.0.1 (people's tokens then)
    const guarded = config.token !== null || !tokenlessHost(config.host);
    const outbound = outboundPolicyOf(guarded, config.allowPrivateServers);
    // a shared database: runs go to the queue, worked on by this process's workers and any others
    team =
      config.databaseUrl && config.queue
        ? await (await import("../engine/team.js")).openTeam({
            databaseUrl: config.databaseUrl,
            config: config.queue,
            storage,
            secrets: box,
            outbound,
            log,
          })
        : undefined;
    engine = new RunEngine({
      storage,
      secrets: box,
      log,
      outbound,
      ...(team ? { queue: team.queue, events: team.events, lanes: team.lanes } : {}),
    });
    app = await buildApp({
      storage,
      engine,
      secrets: box,
      token: config.token,
      allowHosts: config.allowHosts,
      boundHost: config.host,
      webDir: config.webDir,
      logger: opts.logger,
    });
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await app?.close().catch(() => {});
    await team?.close().catch(() => {});
    await reference?.close().catch(() => {});
    await storage.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const resumed = await engine.resumeInterrupted();
  // Load the bundled datasets once the first requests are served, so the first listing is quick.
  setTimeout(() => void warmBundled().catch(() => {}), 1500).unref();
  const running = engine;
  const listening = app;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    app: listening,
    storage,
    engine: running,
    reference,
    resumed,
    close() {
      closing ??= (async () => {
        await running.close();
        await team?.close();
        await listening.close();
        await reference?.close();
        await storage.close();
      })();
      return closing;
    },
  };
}
