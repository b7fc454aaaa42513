#!/usr/bin/env node
/** `decision-server`: starts the reference decision service and prints `listening on http://HOST:PORT`. */

import { readFileSync } from "node:fs";
import { parseArgs, USAGE } from "./cli/args.js";
import { UsageError } from "./cli/flags.js";
import { parseFaultPlan } from "./faults/plan.js";
import { startDecisionServer } from "./server.js";

async function main(): Promise<void> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`decision-server: ${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let faults: ReturnType<typeof parseFaultPlan> | undefined;
  if (args.faultsFile) {
    let text: string;
    try {
      text = readFileSync(args.faultsFile, "utf8");
    } catch (error) {
      process.stderr.write(
        `decision-server: cannot read --faults ${args.faultsFile}: ${(error as Error).message}\n`,
      );
      process.exit(2);
    }
    faults = parseFaultPlan(text);
  }
  const server = await startDecisionServer({
    port: args.port,
    host: args.host,
    apiKey: args.apiKey,
    faults,
    alias: args.alias,
    rateLimit: args.rateLimit,
    record: false,
  });
  process.stdout.write(`listening on ${server.url}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`decision-server: ${(error as Error).message ?? String(error)}\n`);
  process.exit(1);
});
