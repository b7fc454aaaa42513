/**
 * Start-up time of `node dist/cli.js --port 0` until its "listening on" line: cold (empty checkpoint cache,
 * so the checkpoints are trained) and warm (cache filled). Run after `pnpm build`.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { recordResults } from "../../../scripts/bench-results.mjs";

recordResults(import.meta.url, "start-up time");

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

function startOnce(cacheDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, "--port", "0"], {
    env: { ...process.env, DECISION_SERVER_CACHE_DIR: cacheDir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) {
        const ms = performance.now() - started;
        if (!out.startsWith("listening on http://127.0.0.1:"))
          reject(new Error(`unexpected first line: ${out}`));
        child.kill("SIGTERM");
        child.on("exit", () => resolve(ms));
      }
    });
    child.on("error", reject);
  });
}

const dir = mkdtempSync(join(tmpdir(), "decision-server-startup-"));
try {
  const cold = await startOnce(dir);
  const warm = await startOnce(dir);
  console.log(`cold start (trains the checkpoints): ${(cold / 1000).toFixed(2)} s`);
  console.log(`warm start (checkpoint cache):       ${(warm / 1000).toFixed(2)} s`);
  console.log(`warm / cold: ${(warm / cold).toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
