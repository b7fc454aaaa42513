#!/usr/bin/env node
/**
 * The `workbench` command (see dispatch.ts): runs it, waits until what it wrote to stdout and stderr has been
 * handed to the operating system, then exits with its code. A pipe takes 64 KiB before its reader reads; exiting
 * earlier cut every longer output.
 */

import { main } from "./dispatch.js";

/** Resolves once everything written to `stream` so far is written, or it failed (a reader gone: EPIPE). */
function written(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableEnded) return resolve();
    stream.write("", () => resolve());
  });
}

// A reader that has gone away (`workbench report RUN --json | head`) ends the output, not the command.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});

async function exit(code: number): Promise<never> {
  process.exitCode = code;
  await Promise.all([written(process.stdout), written(process.stderr)]);
  // not before: the writes above are the command's output; what keeps the loop alive after it (keep-alive
  // sockets, timers of libraries) must not hold the command back
  process.exit(code);
}

main(process.argv.slice(2)).then(exit, (err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  return exit(1);
});
