#!/usr/bin/env node
/** The `workbench` command: serve, datasets, run, and the analysis commands report, fit and check. */

import { importOptional } from "../engine/optional.js";
import { UsageError } from "./args.js";
import { datasetsCommand } from "./datasets-command.js";
import { runCommand } from "./run-command.js";
import { serveCommand } from "./serve-command.js";

const HELP = `workbench <command> [flags]

  serve      start the API, the web app and the embedded reference server
             [--port 8710] [--host 127.0.0.1] [--token T] [--data-dir D] [--reference-port P] [--no-reference]
  datasets   list the datasets [--json] [--data-dir D]
  run        --dataset D --server URL --model M [--api-key-env VAR] [--split test] [--concurrency 16]
             [--max-len N] [--limit N] [--timeout S] [--retries N] [--data-dir D]
  report     RUN ...                                   (the analysis commands)
  fit        RUN --method auto --out calibration.json
  check      --calibration calibration.json --dataset D --server URL --model M

Environment: WORKBENCH_DATA_DIR (data folder, default <repo>/.data/workbench), WORKBENCH_PORT, WORKBENCH_HOST,
WORKBENCH_TOKEN, WORKBENCH_REFERENCE_PORT, WORKBENCH_SECRET_KEY (64 hex digits; else <data>/secret.key).
`;

type AnalysisCommand = (argv: string[]) => unknown;

async function analysis(
  name: "runReportCommand" | "runFitCommand" | "runCheckCommand",
  argv: string[],
): Promise<number> {
  const mod = await importOptional<Record<string, AnalysisCommand>>(
    new URL("./analysis-commands.js", import.meta.url),
  );
  const fn = mod?.[name];
  if (!fn) {
    process.stderr.write("this command is not available in this build (the analysis commands are missing)\n");
    return 2;
  }
  const code = await fn(argv);
  return typeof code === "number" ? code : 0;
}

/** Runs the command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "serve":
        return await serveCommand(rest);
      case "datasets":
        return await datasetsCommand(rest);
      case "run":
        return await runCommand(rest);
      case "report":
        return await analysis("runReportCommand", rest);
      case "fit":
        return await analysis("runFitCommand", rest);
      case "check":
        return await analysis("runCheckCommand", rest);
      case undefined:
      case "help":
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
