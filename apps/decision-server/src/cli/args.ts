/** Command-line arguments of `decision-server`. */

import { LATEST_ALIAS } from "../bayes/versions.js";
import { parseRateLimit, type RateLimit, RateLimitError } from "../http/rateLimit.js";
import { type FlagSpec, parseFlags, UsageError } from "./flags.js";

/** The usage text. */
export const USAGE = `usage: decision-server [--port N] [--host HOST] [--api-key KEY] [--faults FILE] [--alias ${LATEST_ALIAS}=VERSION]
                       [--rate-limit N/s|N/m] [--rate-burst B]

  --port N            port to listen on (default 8009; 0 picks a free port)
  --host HOST         address to listen on (default 127.0.0.1)
  --api-key KEY       require "Authorization: Bearer KEY" (also from DECISION_SERVER_API_KEY)
  --faults FILE       a JSON fault plan {"seed"?: n, "rules": [{"on"?: [n...], "rate"?: p, "fault": {...}}]}
  --alias ${LATEST_ALIAS}=VERSION
                      the checkpoint version ${LATEST_ALIAS} resolves to (bayes-1 or bayes-2; default bayes-2)
  --rate-limit N/s|N/m
                      admit N requests per second or per minute to POST /v1/decision (a token bucket);
                      beyond it answer 429 with Retry-After and retry-after-ms
  --rate-burst B      the bucket's size: requests admitted at once (default one second's worth, at least 1)`;

const SPEC = {
  port: { type: "string" },
  host: { type: "string" },
  "api-key": { type: "string" },
  faults: { type: "string" },
  alias: { type: "string" },
  "rate-limit": { type: "string" },
  "rate-burst": { type: "string" },
  help: { type: "boolean", short: "h" },
} satisfies FlagSpec;

/** The flags as node:util's parseArgs reads them. */
type Flags = { [K in keyof typeof SPEC]?: (typeof SPEC)[K]["type"] extends "string" ? string : boolean };

/** Parsed arguments. */
export interface CliArgs {
  port: number;
  host: string;
  apiKey?: string;
  faultsFile?: string;
  alias?: string;
  rateLimit?: RateLimit;
  help: boolean;
}

/** Parses argv (without node and the script); `env` supplies DECISION_SERVER_API_KEY. */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliArgs {
  const { flags } = parseFlags<Flags>("decision-server", argv, SPEC);
  const out: CliArgs = { port: 8009, host: "127.0.0.1", help: flags.help === true };
  if (flags.port !== undefined) {
    const n = Number(flags.port);
    if (!/^\d+$/.test(flags.port) || n > 65535)
      throw new UsageError(`--port must be an integer from 0 to 65535, got '${flags.port}'`);
    out.port = n;
  }
  if (flags.host !== undefined) out.host = flags.host;
  const apiKey = flags["api-key"] ?? env.DECISION_SERVER_API_KEY;
  if (apiKey) out.apiKey = apiKey;
  if (flags.faults !== undefined) out.faultsFile = flags.faults;
  if (flags.alias !== undefined) {
    const [name, target] = flags.alias.split("=", 2);
    if (name !== LATEST_ALIAS || !target) {
      throw new UsageError(
        `--alias must be ${LATEST_ALIAS}=VERSION (for example ${LATEST_ALIAS}=bayes-1), got '${flags.alias}'`,
      );
    }
    out.alias = target;
  }
  if (flags["rate-limit"] !== undefined) {
    try {
      out.rateLimit = parseRateLimit(flags["rate-limit"]);
    } catch (error) {
      if (error instanceof RateLimitError) throw new UsageError(`--rate-limit: ${error.message}`);
      throw error;
    }
  }
  const burst = flags["rate-burst"];
  if (burst !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(burst) || !(Number(burst) >= 1)) {
      throw new UsageError(`--rate-burst must be a number of requests of at least 1, got '${burst}'`);
    }
    if (!out.rateLimit) throw new UsageError("--rate-burst needs --rate-limit N/s or N/m");
    out.rateLimit.burst = Number(burst);
  }
  return out;
}
