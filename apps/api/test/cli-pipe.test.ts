/**
 * The command line never ends before its output is written: several hundred kB of `workbench report --json`
 * through a pipe whose reader takes its time arrive whole, byte for byte what the same command writes to a file.
 * Runs the built command (pnpm build first), as a user does.
 */

import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDataset, addServer, reference, runToEnd, tempDir, testBench } from "./helpers.js";

const apiDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const main = join(apiDir, "dist", "cli", "main.js");
const tmp = tempDir();
let ref: DecisionServerHandle;
let runId: string;

beforeAll(async () => {
  const built = statSync(main).mtimeMs >= statSync(join(apiDir, "src", "cli", "main.ts")).mtimeMs;
  if (!built) throw new Error(`${main} is older than its source: run pnpm build first`);
  ref = await reference();
  const bench = await testBench({ dir: tmp.dir });
  try {
    await addDataset(bench.app, 900);
    const serverId = await addServer(bench.app, ref.url);
    const run = await runToEnd(bench, {
      dataset: "tickets",
      serverId,
      model: "lexical",
      splits: ["train", "calibration", "test"],
      concurrency: 8,
    });
    expect(run.status).toBe("done");
    runId = run.id;
  } finally {
    await bench.close();
  }
});

afterAll(async () => {
  await ref.close();
  tmp.cleanup();
});

const REPORT = () => ["report", runId, "--json", "--split", "all", "--bins", "100", "--data-dir", tmp.dir];

/** Runs the built command with stdout into a file; resolves to the exit code. */
function toFile(args: string[], file: string): Promise<number | null> {
  const fd = openSync(file, "w");
  const proc = spawn(process.execPath, [main, ...args], { stdio: ["ignore", fd, "inherit"] });
  return new Promise((resolve) => {
    proc.on("exit", (code) => {
      closeSync(fd);
      resolve(code);
    });
  });
}

/** A reader that takes its time: a chunk of stdin, then a pause of 20 ms, everything to its stdout at the end. */
const SLOW_READER = `
const chunks = [];
process.stdin.on("data", (chunk) => {
  chunks.push(chunk);
  process.stdin.pause();
  setTimeout(() => process.stdin.resume(), 20);
});
process.stdin.on("end", () => process.stdout.write(Buffer.concat(chunks)));
`;

/** Runs the built command with stdout into a pipe to a slow reader; resolves to its exit code and what the reader read. */
async function throughSlowPipe(args: string[]): Promise<{ code: number | null; bytes: Buffer }> {
  const reader = spawn(process.execPath, ["-e", SLOW_READER], { stdio: ["pipe", "pipe", "inherit"] });
  const read: Buffer[] = [];
  reader.stdout.on("data", (chunk: Buffer) => read.push(chunk));
  const readerDone = new Promise((resolve) => reader.on("close", resolve));
  const proc = spawn(process.execPath, [main, ...args], { stdio: ["ignore", reader.stdin, "inherit"] });
  reader.stdin.destroy(); // the command holds the pipe's only writing end: the reader sees its end when it exits
  const code = await new Promise<number | null>((resolve) => proc.on("exit", resolve));
  await readerDone;
  return { code, bytes: Buffer.concat(read) };
}

describe("output through a pipe", () => {
  it("writes several hundred kB of report --json whole to a slow reader, as into a file", async () => {
    const file = join(tmp.dir, "report.json");
    expect(await toFile(REPORT(), file)).toBe(0);
    const expected = readFileSync(file);
    expect(expected.length).toBeGreaterThan(300_000);
    const piped = await throughSlowPipe(REPORT());
    expect(piped.code).toBe(0);
    expect(piped.bytes.length).toBe(expected.length);
    expect(piped.bytes.equals(expected)).toBe(true);
  });
});
