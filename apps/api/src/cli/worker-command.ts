/**
 * `workbench worker`: run workers on a shared database, on any machine that reaches it. They take chunks of
 * queued runs (engine/run-worker.ts) until SIGINT or SIGTERM, then store their answers in flight and put the
 * rest of their chunks back. The process needs the same secret key as the API (WORKBENCH_SECRET_KEY, or the
 * data folder's secret.key) to open the servers' API keys.
 */

import {
  allowPrivateServersOf,
  ConfigError,
  databaseUrlOf,
  defaultDataDir,
  ENV,
  queueConfig,
} from "../config.js";
import { openTeam } from "../engine/team.js";
import { SecretBox } from "../secrets/box.js";
import { loadSecretKey } from "../secrets/key.js";
import { outboundPolicyOf } from "../servers/outbound.js";
import { openPostgresStorage } from "../storage/postgres/postgres.js";
import { parseFlags, UsageError } from "./args.js";
import { untilSignal } from "./signals.js";

/** `workbench worker --help`. */
export const WORKER_HELP = `workbench worker --database-url URL [flags]

Runs workers on the shared database's queue of runs, on any machine that reaches it, until SIGINT or SIGTERM
(answers in flight are stored, unfinished chunks put back). The process needs the API's secret key
(WORKBENCH_SECRET_KEY, or the data folder's secret.key) to open the servers' API keys.

  --database-url URL         the shared PostgreSQL (or WORKBENCH_DATABASE_URL)
  --workers 1                workers in this process
  --data-dir D               the data folder holding secret.key
  --allow-private-servers    let runs reach private and loopback servers

For example, beside workbench serve --database-url postgres://workbench@127.0.0.1:5432/workbench:
  workbench worker --database-url postgres://workbench@127.0.0.1:5432/workbench --workers 2
`;

interface WorkerFlags {
  "database-url"?: string;
  workers?: string;
  "data-dir"?: string;
  "allow-private-servers"?: boolean;
}

/** Runs `workbench worker`; resolves with the exit code once stopped. */
export async function workerCommand(argv: string[]): Promise<number> {
  const { flags } = parseFlags<WorkerFlags>("workbench worker", argv, {
    "database-url": { type: "string" },
    workers: { type: "string" },
    "data-dir": { type: "string" },
    "allow-private-servers": { type: "boolean" },
  });
  let databaseUrl: string | null;
  let config: ReturnType<typeof queueConfig>;
  try {
    databaseUrl = databaseUrlOf(flags["database-url"]);
    if (!databaseUrl) {
      throw new ConfigError(
        `workbench worker needs the shared database: --database-url postgres://USER:PASSWORD@HOST:5432/DATABASE or ${ENV.databaseUrl}`,
      );
    }
    config = queueConfig(databaseUrl, flags.workers);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (!config || config.workers < 1) throw new UsageError("--workers must be 1 or more for workbench worker");
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const secrets = new SecretBox(loadSecretKey(flags["data-dir"] ?? defaultDataDir()));
  const storage = await openPostgresStorage(databaseUrl);
  // private and loopback servers only when allowed: a worker runs beside other machines of a team
  const allowPrivate = allowPrivateServersOf(flags["allow-private-servers"]);
  const team = await openTeam({
    databaseUrl,
    config,
    storage,
    secrets,
    outbound: outboundPolicyOf(true, allowPrivate),
    log,
  }).catch(async (err) => {
    await storage.close();
    throw err;
  });
  log(
    `worker ready: ${config.workers} worker(s) on ${storage.path}${config.redisUrl ? " (queue on Redis)" : ""}`,
  );
  process.stdout.write("worker ready\n");
  return untilSignal(
    async () => {
      await team.close();
      await storage.close();
    },
    "storing answers in flight, putting unfinished chunks back",
    log,
  );
}
