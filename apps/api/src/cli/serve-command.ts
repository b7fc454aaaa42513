/** `workbench serve`: the reference server, the API and the web app; prints `listening on URL` first. */

import { ConfigError, type ServeFlags, serveConfig } from "../config.js";
import { parseFlags, UsageError } from "./args.js";
import { startWorkbench } from "./serve.js";
import { untilSignal } from "./signals.js";

/** `workbench serve --help`. */
export const SERVE_HELP = `workbench serve [flags]

Starts the API, the web app and the embedded reference server; prints "listening on URL" first and stops on
SIGINT or SIGTERM (answers in flight are stored).

  --port 8710                the API's and web app's port (0: a free port)
  --host 127.0.0.1           the address to listen on (beyond 127.0.0.1 a token is needed)
  --token T                  the shared bearer token of /api
  --data-dir D               the data folder (default: WORKBENCH_DATA_DIR or <repo>/.data/workbench)
  --reference-port P         the embedded reference server's port (default: the one used last time, else free)
  --no-reference             no embedded reference server
  --allow-host NAME ...      the host names the app answers to beyond the one it listens on
  --allow-private-servers    let runs reach private and loopback servers when exposed
  --database-url URL         a shared PostgreSQL (runs go to its queue)
  --workers 1                run workers in this process (0: API only)
  --log-level L              the server log's level

For example (the embedded reference server on a fixed port, as the other commands' examples use it):
  workbench serve --reference-port 8009
`;

/** Runs `workbench serve`; resolves when it has stopped (SIGINT / SIGTERM). */
export async function serveCommand(argv: string[]): Promise<number> {
  const { flags } = parseFlags<ServeFlags>("workbench serve", argv, {
    port: { type: "string" },
    host: { type: "string" },
    token: { type: "string" },
    "data-dir": { type: "string" },
    "reference-port": { type: "string" },
    "no-reference": { type: "boolean" },
    "log-level": { type: "string" },
    "allow-host": { type: "string", multiple: true },
    "allow-private-servers": { type: "boolean" },
    "database-url": { type: "string" },
    workers: { type: "string" },
  });
  let config: ReturnType<typeof serveConfig>;
  try {
    config = serveConfig(flags);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const log = (m: string) => process.stderr.write(`${m}\n`);
  let wb: Awaited<ReturnType<typeof startWorkbench>>;
  try {
    wb = await startWorkbench(config, { log, logger: { level: config.logLevel, stream: process.stderr } });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  process.stdout.write(`listening on ${wb.url}\n`);
  const store = config.databaseUrl ? `PostgreSQL ${wb.storage.path}` : `data folder ${config.dataDir}`;
  log(`${store}${config.webDir ? "" : " (no built web app: run pnpm build)"}`);
  if (wb.resumed.length) log(`resumed ${wb.resumed.length} interrupted run(s)`);
  return untilSignal(() => wb.close(), "storing answers in flight, then stopping", log);
}
