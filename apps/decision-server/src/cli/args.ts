/** Command-line arguments of `decision-server`. */

import { LATEST_ALIAS } from "../bayes/versions.js";
import { parseRateLimit, type RateLimit, RateLimitError } from "../http/rateLimit.js";

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

/** A bad command line; the message says what is wrong. */
export class UsageError extends Error {}

/** Parses argv (without node and the script); `env` supplies DECISION_SERVER_API_KEY. */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliArgs {
  const out: CliArgs = { port: 8009, host: "127.0.0.1", help: false };
  let burst: number | undefined;
  if (env.DECISION_SERVER_API_KEY) out.apiKey = env.DECISION_SERVER_API_KEY;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") {
      out.help = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const takeValue = (): string => {
      if (flag !== arg) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--port": {
        const v = takeValue();
        const n = Number(v);
        if (!/^\d+$/.test(v) || n > 65535)
          throw new UsageError(`--port must be an integer from 0 to 65535, got '${v}'`);
        out.port = n;
        break;
      }
      case "--host":
        out.host = takeValue();
        break;
      case "--api-key":
        out.apiKey = takeValue();
        break;
      case "--faults":
        out.faultsFile = takeValue();
        break;
      case "--alias": {
        const v = takeValue();
        const [name, target] = v.split("=", 2);
        if (name !== LATEST_ALIAS || !target) {
          throw new UsageError(
            `--alias must be ${LATEST_ALIAS}=VERSION (for example ${LATEST_ALIAS}=bayes-1), got '${v}'`,
          );
        }
        out.alias = target;
        break;
      }
      case "--rate-limit": {
        const v = takeValue();
        try {
          out.rateLimit = parseRateLimit(v);
        } catch (error) {
          if (error instanceof RateLimitError) throw new UsageError(`--rate-limit: ${error.message}`);
          throw error;
        }
        break;
      }
      case "--rate-burst": {
        const v = takeValue();
        const n = Number(v);
        if (!/^\d+(\.\d+)?$/.test(v) || !(n >= 1)) {
          throw new UsageError(`--rate-burst must be a number of requests of at least 1, got '${v}'`);
        }
        burst = n;
        break;
      }
      default:
        throw new UsageError(`unknown argument '${arg}'`);
    }
  }
  if (burst !== undefined) {
    if (!out.rateLimit) throw new UsageError("--rate-burst needs --rate-limit N/s or N/m");
    out.rateLimit.burst = burst;
  }
  return out;
}
