/** Where the workbench keeps its data and how it listens: flags first, then environment variables, then defaults. */

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Environment variables the workbench reads. */
export const ENV = {
  dataDir: "WORKBENCH_DATA_DIR",
  port: "WORKBENCH_PORT",
  host: "WORKBENCH_HOST",
  token: "WORKBENCH_TOKEN",
  referencePort: "WORKBENCH_REFERENCE_PORT",
  logLevel: "WORKBENCH_LOG_LEVEL",
  allowHosts: "WORKBENCH_ALLOW_HOSTS",
  allowPrivateServers: "WORKBENCH_ALLOW_PRIVATE_SERVERS",
  databaseUrl: "WORKBENCH_DATABASE_URL",
  redisUrl: "WORKBENCH_REDIS_URL",
  queueLockMs: "WORKBENCH_QUEUE_LOCK_MS",
} as const;

/** The default API port. */
export const DEFAULT_PORT = 8710;
/** The only bind address that needs no token. */
const LOOPBACK = "127.0.0.1";
/** The database file's name inside the data folder. */
export const DB_FILE = "workbench.sqlite";

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root (the folder holding pnpm-workspace.yaml), or undefined outside a checkout. */
function repoRoot(): string | undefined {
  let dir = here;
  for (;;) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** `$WORKBENCH_DATA_DIR`, else `<repo>/.data/workbench`, else `./.data/workbench`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[ENV.dataDir];
  if (fromEnv) return resolve(fromEnv);
  return join(repoRoot() ?? process.cwd(), ".data", "workbench");
}

/** The built web app (`apps/web/dist`) when it exists. */
function defaultWebDir(): string | undefined {
  const dir = join(here, "..", "..", "web", "dist");
  return existsSync(join(dir, "index.html")) ? dir : undefined;
}

/** Settings of `workbench serve`. */
export interface ServeConfig {
  dataDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Bearer token every /api request must carry; required unless host is 127.0.0.1. */
  token: string | null;
  /** The embedded reference server: off, or on at this port (0 = a free port, or the one used last time). */
  reference: { enabled: boolean; port: number };
  webDir: string | undefined;
  logLevel: string;
  /** Host names (beyond the bound address and loopback names) the API answers to (`--allow-host`). */
  allowHosts: string[];
  /**
   * Whether servers may have private or loopback base URLs in token mode (`--allow-private-servers`). Without
   * a token they always may; link-local and metadata addresses never may.
   */
  allowPrivateServers: boolean;
  /**
   * A PostgreSQL database shared by every API instance and worker (`--database-url`, `postgres://...`), or null:
   * the data folder's SQLite file. Never shown: it may hold a password.
   */
  databaseUrl: string | null;
  /** With a database URL, the queue of run chunks and this process's workers on it; else null. */
  queue: QueueConfig | null;
}

/** The queue of run chunks (engine/run-queue.ts), with a shared database. */
export interface QueueConfig {
  /** Run workers this process hosts (`--workers`; 0: none). */
  workers: number;
  /** Redis holds the queue instead of the database (`WORKBENCH_REDIS_URL`); never shown. */
  redisUrl: string | null;
  /** How long a chunk of a dead worker waits before another worker takes it (ms, `WORKBENCH_QUEUE_LOCK_MS`). */
  lockMs: number;
}

/** Flags of `workbench serve` (strings as typed). */
export interface ServeFlags {
  "data-dir"?: string;
  host?: string;
  port?: string;
  token?: string;
  "reference-port"?: string;
  "no-reference"?: boolean;
  "log-level"?: string;
  "allow-host"?: string[];
  "allow-private-servers"?: boolean;
  "database-url"?: string;
  workers?: string;
}

/** A bad setting; the message names the flag or variable and what would be right. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

function port(text: string | undefined, what: string, fallback: number): number {
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 65535) {
    throw new ConfigError(
      `${what} must be a port number from 0 to 65535 (0 picks a free port); got ${JSON.stringify(text)}`,
    );
  }
  return Number(text);
}

/** Whether a workbench bound to `host` may go without any token: only on 127.0.0.1. */
export function tokenlessHost(host: string): boolean {
  return host === LOOPBACK;
}

/**
 * Refuses to serve beyond 127.0.0.1 with no token at all: neither the shared one (--token) nor any person's
 * (`workbench tokens create`; `hasPersonTokens` is read from the store once it is open).
 */
export function checkExposure(config: Pick<ServeConfig, "host" | "token">, hasPersonTokens: boolean): void {
  if (tokenlessHost(config.host) || config.token !== null || hasPersonTokens) return;
  throw new ConfigError(
    `binding to ${config.host} needs a bearer token: pass --token <secret> or set WORKBENCH_TOKEN, or give each person a token of their own (workbench tokens create --name NAME); only ${LOOPBACK} may go without one`,
  );
}

/** A whole number setting from `min` to `max`, or `fallback` when not given. */
function whole(text: string | undefined, what: string, min: number, max: number, fallback: number): number {
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ConfigError(
      `${what} must be a whole number from ${min} to ${max}; got ${JSON.stringify(text)}`,
    );
  }
  return Number(text);
}

/**
 * The queue settings of a process with a database URL (null without one: runs are worked on by the API process
 * itself, and `--workers` is refused). Workers default to 1.
 */
export function queueConfig(
  database: string | null,
  workers: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): QueueConfig | null {
  if (!database) {
    if (workers !== undefined)
      throw new ConfigError(
        `--workers needs a shared database (--database-url or ${ENV.databaseUrl}); without one the workbench works on its runs itself`,
      );
    return null;
  }
  const redisUrl = env[ENV.redisUrl] || null;
  if (redisUrl !== null && !/^rediss?:\/\/[^/\s]/.test(redisUrl)) {
    throw new ConfigError(`${ENV.redisUrl} must be a redis:// or rediss:// URL such as redis://HOST:6379/0`);
  }
  return {
    workers: whole(workers, "--workers", 0, 64, 1),
    redisUrl,
    lockMs: whole(env[ENV.queueLockMs], ENV.queueLockMs, 1000, 3_600_000, 30_000),
  };
}

/** A PostgreSQL URL, or null when none is given; the message never repeats the URL (it may hold a password). */
function databaseUrl(text: string | undefined): string | null {
  if (text === undefined || text === "") return null;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    !["postgres:", "postgresql:"].includes(url.protocol) ||
    (!url.hostname && !url.searchParams.get("host"))
  ) {
    throw new ConfigError(
      `--database-url / ${ENV.databaseUrl} must be a PostgreSQL URL such as postgres://USER:PASSWORD@HOST:5432/DATABASE (leave it unset for the data folder's SQLite file)`,
    );
  }
  return text;
}

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** `--allow-private-servers`, else WORKBENCH_ALLOW_PRIVATE_SERVERS (1, true or yes). */
export function allowPrivateServersOf(
  flag: boolean | undefined,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return flag === true || /^(1|true|yes)$/i.test(env[ENV.allowPrivateServers] ?? "");
}

/** The database URL of flags and environment (checked), or null. */
export function databaseUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  return databaseUrl(flag ?? env[ENV.databaseUrl]);
}

/** Reads flags and environment into a ServeConfig; throws ConfigError on a bad value. */
export function serveConfig(flags: ServeFlags = {}, env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const database = databaseUrlOf(flags["database-url"], env);
  const host = flags.host ?? env[ENV.host] ?? LOOPBACK;
  const tokenText = flags.token ?? env[ENV.token] ?? "";
  const token = tokenText === "" ? null : tokenText;
  if (token !== null && (token.length < 16 || /\s/.test(token))) {
    throw new ConfigError(
      "the token (--token or WORKBENCH_TOKEN) must be at least 16 characters without spaces",
    );
  }
  const logLevel = flags["log-level"] ?? env[ENV.logLevel] ?? "info";
  if (!LEVELS.includes(logLevel)) {
    throw new ConfigError(
      `the log level must be one of ${LEVELS.join(", ")}; got ${JSON.stringify(logLevel)}`,
    );
  }
  const allowHosts = [
    ...(flags["allow-host"] ?? []),
    ...(env[ENV.allowHosts] ?? "").split(",").filter((h) => h.trim() !== ""),
  ].map((h) => h.trim().toLowerCase());
  for (const h of allowHosts) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)$/.test(h)) {
      throw new ConfigError(
        `--allow-host / ${ENV.allowHosts} takes a host name or address without scheme or port (e.g. workbench.example.com); got ${JSON.stringify(h)}`,
      );
    }
  }
  return {
    databaseUrl: database,
    queue: queueConfig(database, flags.workers, env),
    allowHosts,
    allowPrivateServers: allowPrivateServersOf(flags["allow-private-servers"], env),
    dataDir: flags["data-dir"] ? resolve(flags["data-dir"]) : defaultDataDir(env),
    host,
    port: port(flags.port ?? env[ENV.port], "--port / WORKBENCH_PORT", DEFAULT_PORT),
    token,
    reference: {
      enabled: !flags["no-reference"],
      port: port(
        flags["reference-port"] ?? env[ENV.referencePort],
        "--reference-port / WORKBENCH_REFERENCE_PORT",
        0,
      ),
    },
    webDir: defaultWebDir(),
    logLevel,
  };
}
