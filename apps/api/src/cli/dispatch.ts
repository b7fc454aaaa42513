/**
 * Dispatches the `workbench` command line: serve, worker, tokens, datasets, run, and the analysis commands report,
 * fit and check; `workbench help COMMAND` and `workbench COMMAND --help` print the command's help.
 */

import {
  CHECK_HELP,
  FIT_HELP,
  REPORT_HELP,
  runCheckCommand,
  runFitCommand,
  runReportCommand,
} from "./analysis-commands.js";
import { UsageError } from "./args.js";
import { DATASETS_HELP, datasetsCommand } from "./datasets-command.js";
import { REFERENCE_URL, RUN_HELP, runCommand } from "./run-command.js";
import { SERVE_HELP, serveCommand } from "./serve-command.js";
import { TOKENS_HELP, tokensCommand } from "./tokens-command.js";
import { WORKER_HELP, workerCommand } from "./worker-command.js";

const HELP = `workbench <command> [flags]   (workbench <command> --help: the command's flags and an example)

  serve      start the API, the web app and the embedded reference server
             [--port 8710] [--host 127.0.0.1] [--token T] [--data-dir D] [--reference-port P] [--no-reference]
             [--allow-host NAME ...] [--allow-private-servers]
             [--database-url URL] [--workers 1]   (a shared PostgreSQL; runs go to its queue; 0: API only)
  worker     run workers on the shared database's queue of runs, on any machine that reaches it
             --database-url URL [--workers 1] [--data-dir D] [--allow-private-servers]
  tokens     create --name NAME (prints the new token once) | list [--json] | revoke --name NAME
             [--data-dir D] [--database-url URL]   (people's own API tokens, stored hashed)
  datasets   list the datasets [--json] [--data-dir D]
  run        --dataset D --server URL --model M [--api-key-env VAR] [--split calibration,test|all]
             [--concurrency 16] [--max-len N] [--limit N] [--timeout S] [--retries N] [--data-dir D]
             [--requests-per-minute N|none] [--input-tokens-per-minute N|none]   (the server's rate limits)
             [--input-price P|none] [--output-price P|none]   (the server's prices per million tokens)
             [--max-cost C] [--max-input-tokens N]   (stop at the budget, exit 3) [--estimate] (print, send nothing)
  report     RUN [--item I] [--split test|calibration,test|all] [--bins 15] [--json] [--data-dir D]
  fit        RUN --out calibration.json [--method auto] [--item I] [--fit-split calibration]
             [--eval-split test|crossfit] [--target-risk 0.05] [--conservative] [--select nll|brier]
  check      --calibration calibration.json --dataset D --server URL --model M [--api-key-env VAR]
             [--split calibration,test|all] [--limit N] [--concurrency 16] [--json]   (exit 1 with the reasons on drift)

--split takes a list: train, calibration or test, comma-separated (--split calibration,test), or all
(every split). RUN is a run id, or latest for the newest run of the data folder.

For example, a run, its report, a calibration and a check against the embedded reference server:
  workbench serve --reference-port 8009        (in another terminal; it serves workbench-latest)
  workbench datasets
  workbench run --dataset penguins --server ${REFERENCE_URL} --model workbench-latest --split calibration,test
  workbench report latest
  workbench fit latest --method auto --out calibration.json
  workbench check --calibration calibration.json --dataset penguins --server ${REFERENCE_URL} --model workbench-latest

Environment: WORKBENCH_DATA_DIR (data folder, default <repo>/.data/workbench), WORKBENCH_PORT, WORKBENCH_HOST,
WORKBENCH_TOKEN, WORKBENCH_DATABASE_URL, WORKBENCH_REDIS_URL (the run queue on Redis), WORKBENCH_QUEUE_LOCK_MS, WORKBENCH_ALLOW_HOSTS (comma-separated), WORKBENCH_ALLOW_PRIVATE_SERVERS (1), WORKBENCH_REFERENCE_PORT, WORKBENCH_SECRET_KEY (64 hex digits; else <data>/secret.key).
`;

/** Each command's `--help`: what it does, its flags and an example that works against the reference server. */
const COMMAND_HELP: Record<string, string> = {
  serve: SERVE_HELP,
  worker: WORKER_HELP,
  tokens: TOKENS_HELP,
  datasets: DATASETS_HELP,
  run: RUN_HELP,
  report: REPORT_HELP,
  fit: FIT_HELP,
  check: CHECK_HELP,
};

/** True when the arguments ask for help (`--help` or `-h` before any `--`). */
function asksHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** Runs the command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== undefined && Object.hasOwn(COMMAND_HELP, command) && asksHelp(rest)) {
    process.stdout.write(COMMAND_HELP[command]);
    return 0;
  }
  try {
    switch (command) {
      case "serve":
        return await serveCommand(rest);
      case "tokens":
        return await tokensCommand(rest);
      case "worker":
        return await workerCommand(rest);
      case "datasets":
        return await datasetsCommand(rest);
      case "run":
        return await runCommand(rest);
      case "report":
        return await runReportCommand(rest);
      case "fit":
        return await runFitCommand(rest);
      case "check":
        return await runCheckCommand(rest);
      case "help":
        if (rest[0] !== undefined && Object.hasOwn(COMMAND_HELP, rest[0])) {
          process.stdout.write(COMMAND_HELP[rest[0]]);
          return 0;
        }
        if (rest[0] !== undefined) {
          process.stderr.write(`unknown command ${JSON.stringify(rest[0])}\n\n${HELP}`);
          return 2;
        }
        process.stdout.write(HELP);
        return 0;
      case undefined:
      case "--help":
      case "-h":
        process.stdout.write(HELP);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`unknown command ${JSON.stringify(command)}\n\n${HELP}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    process.stderr.write(`workbench ${command}: ${(err as Error).message}\n`);
    return 1;
  }
}
