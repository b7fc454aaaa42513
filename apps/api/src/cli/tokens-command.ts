/**
 * `workbench tokens create|list|revoke`: the people's API tokens, in the data folder's SQLite file or the
 * PostgreSQL database (`--database-url`), as `serve` opens them. A new token is printed once, alone on stdout;
 * only its hash is stored (security/person-tokens.ts).
 */

import { join } from "node:path";
import { ConfigError, DB_FILE, ENV, serveConfig } from "../config.js";
import { newToken, TOKEN_NAME } from "../security/person-tokens.js";
import { openStorage } from "../storage/sqlite.js";
import type { WorkbenchStorage } from "../storage/types.js";
import { parseFlags, UsageError } from "./args.js";

const USAGE =
  "workbench tokens create --name NAME | list [--json] | revoke --name NAME, each with [--data-dir D] [--database-url URL]";

/** `workbench tokens --help`. */
export const TOKENS_HELP = `workbench tokens create --name NAME | list [--json] | revoke --name NAME [flags]

People's own API tokens, stored hashed in the data folder (or the shared database): create prints a new token
once, alone on stdout; list shows names and dates, never tokens; revoke refuses a token on every instance.

  --name NAME            1 to 64 of a-z, 0-9, '.', '_' and '-' (such as alice or ci.nightly)
  --json                 list as JSON
  --data-dir D           the data folder (default: WORKBENCH_DATA_DIR or <repo>/.data/workbench)
  --database-url URL     the shared PostgreSQL, as workbench serve opens it

For example:
  workbench tokens create --name alice
`;

interface TokenFlags {
  name?: string;
  json?: boolean;
  "data-dir"?: string;
  "database-url"?: string;
}

/** The store `serve` would open with these flags (only the data folder and the database URL are read). */
async function openStore(flags: TokenFlags): Promise<WorkbenchStorage> {
  let config: ReturnType<typeof serveConfig>;
  try {
    const env = { [ENV.dataDir]: process.env[ENV.dataDir], [ENV.databaseUrl]: process.env[ENV.databaseUrl] };
    config = serveConfig({ "data-dir": flags["data-dir"], "database-url": flags["database-url"] }, env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  return config.databaseUrl
    ? (await import("../storage/postgres/postgres.js")).openPostgresStorage(config.databaseUrl)
    : openStorage(join(config.dataDir, DB_FILE));
}

/** The --name flag, checked. */
function nameOf(flags: TokenFlags, action: string): string {
  const name = flags.name;
  if (name === undefined) throw new UsageError(`workbench tokens ${action} needs --name NAME (${USAGE})`);
  if (!TOKEN_NAME.test(name)) {
    throw new UsageError(
      `--name must be 1 to 64 of a-z, 0-9, '.', '_' and '-' (such as alice or ci.nightly); got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/** Runs a tokens subcommand; resolves to the exit code. */
export async function tokensCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== "create" && action !== "list" && action !== "revoke") {
    throw new UsageError(`unknown tokens command ${JSON.stringify(action ?? "")}: ${USAGE}`);
  }
  const { flags } = parseFlags<TokenFlags>(`workbench tokens ${action}`, rest, {
    ...(action === "list" ? { json: { type: "boolean" } } : { name: { type: "string" } }),
    "data-dir": { type: "string" },
    "database-url": { type: "string" },
  });
  const name = action === "list" ? undefined : nameOf(flags, action);
  const storage = await openStore(flags);
  try {
    if (action === "create" && name !== undefined) {
      if ((await storage.listTokens()).some((t) => t.name === name)) {
        process.stderr.write(
          `a token named ${name} exists already (a revoked token keeps its name): choose another name\n`,
        );
        return 1;
      }
      const { token, row } = newToken(name);
      await storage.insertToken(row);
      process.stdout.write(`${token}\n`);
      process.stderr.write(
        `token ${name} created: it is shown once; send it as 'Authorization: Bearer <token>'\n`,
      );
      return 0;
    }
    if (action === "revoke" && name !== undefined) {
      if (await storage.revokeToken(name)) {
        process.stderr.write(`token ${name} revoked: every API instance on this store refuses it now\n`);
        return 0;
      }
      process.stderr.write(`no active token named ${name} (workbench tokens list shows them)\n`);
      return 1;
    }
    const tokens = await storage.listTokens();
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
      return 0;
    }
    for (const t of tokens) {
      process.stdout.write(
        `${t.name}  created ${t.createdAt}  ${t.revokedAt ? `revoked ${t.revokedAt}` : "active"}\n`,
      );
    }
    return 0;
  } finally {
    await storage.close();
  }
}
