/**
 * Dispatches the `workbench` command line: serve, worker, tokens, datasets, run, and the analysis commands report,
 * fit and check; `workbench help COMMAND` and `workbench COMMAND --help` print the command's help.
 */

import { REFERENCE_URL, UsageError } from "./args.js";

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

/** A command: what runs it and its `--help` (what it does, its flags and an example against the reference server). */
interface Command {
  run: (argv: string[]) => Promise<number>;
  help: string;
}

/**
 * Each command's module, loaded when the command is asked for: a `workbench worker` process does not load the
 * API server nor the analysis commands (127 MB of RSS with every command loaded, 101 MB with the worker's only).
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => {
    const m = await import("./serve-command.js");
    return { run: m.serveCommand, help: m.SERVE_HELP };
  },
  worker: async () => {
    const m = await import("./worker-command.js");
    return { run: m.workerCommand, help: m.WORKER_HELP };
  },
  tokens: async () => {
    const m = await import("./tokens-command.js");
    return { run: m.tokensCommand, help: m.TOKENS_HELP };
  },
  datasets: async () => {
    const m = await import("./datasets-command.js");
    return { run: m.datasetsCommand, help: m.DATASETS_HELP };
  },
  run: async () => {
    const m = await import("./run-command.js");
    return { run: m.runCommand, help: m.RUN_HELP };
  },
  report: async () => {
    const m = await import("./analysis-commands.js");
    return { run: m.runReportCommand, help: m.REPORT_HELP };
  },
  fit: async () => {
    const m = await import("./analysis-commands.js");
    return { run: m.runFitCommand, help: m.FIT_HELP };
  },
  check: async () => {
    const m = await import("./analysis-commands.js");
    return { run: m.runCheckCommand, help: m.CHECK_HELP };
  },
};

/** True when the arguments ask for help (`--help` or `-h` before any `--`). */
function asksHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** Runs the command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const known = (name: string | undefined) => name !== undefined && Object.hasOwn(COMMANDS, name);
  try {
    if (known(command)) {
      const c = await COMMANDS[command as string]();
      if (!asksHelp(rest)) return await c.run(rest);
      process.stdout.write(c.help);
      return 0;
    }
    switch (command) {
      case "help":
        if (known(rest[0])) {
          process.stdout.write((await COMMANDS[rest[0]]()).help);
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
