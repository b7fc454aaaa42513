// The built workbench (`workbench serve`, as a user starts it) as a child process of a bench.

import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** Starts the built API on a data folder; resolves once it listens, with the ms from spawn to "listening". */
export function startApi(dataDir: string): Promise<{ proc: ChildProcess; url: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [join(here, "../dist/cli/main.js"), "serve", "--port", "0", "--no-reference", "--log-level", "warn"],
      { env: { ...process.env, WORKBENCH_DATA_DIR: dataDir }, stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    proc.stdout?.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1], ms: performance.now() - t0 });
    });
    proc.on("exit", (code) => reject(new Error(`the API exited with ${code}`)));
  });
}
