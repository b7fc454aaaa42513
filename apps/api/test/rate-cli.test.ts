/** The command line's rate limit flags: stored on the run's server, paced, shown in the progress line. */

import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ProgressPrinter, rateLimitText } from "../src/cli/progress.js";
import type { Progress } from "../src/shapes/runs.js";
import { openStorage } from "../src/storage/sqlite.js";
import { inProcess, penguinsRun } from "./cli-in-process.js";
import { reference, tempDir } from "./helpers.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe("workbench run --requests-per-minute", () => {
  it("stores the limits on the server and paces the run to them; none clears them", async () => {
    const ref = await reference();
    const dataDir = join(tmp.dir, "limited");
    try {
      const args = penguinsRun(ref.url, 3);
      const res = await inProcess(
        [...args, "--requests-per-minute", "600", "--input-tokens-per-minute", "90000"],
        {
          WORKBENCH_DATA_DIR: dataDir,
        },
      );
      expect(res.code, res.stderr).toBe(0);
      const storage = openStorage(join(dataDir, "workbench.sqlite"));
      const [server] = await storage.listServers();
      expect(server).toMatchObject({ requestsPerMinute: 600, inputTokensPerMinute: 90000 });
      await storage.close();
      // 6 requests at 10 a second with a bucket of 10: none waits, all answered
      expect(res.stdout).toMatch(/escalated 0/);

      const cleared = await inProcess([...args, "--requests-per-minute", "none"], {
        WORKBENCH_DATA_DIR: dataDir,
      });
      expect(cleared.code, cleared.stderr).toBe(0);
      const again = openStorage(join(dataDir, "workbench.sqlite"));
      const [after] = await again.listServers();
      expect(after).toMatchObject({ requestsPerMinute: null, inputTokensPerMinute: 90000 });
      await again.close();
    } finally {
      await ref.close();
    }
  }, 60_000);

  it("refuses a limit that is not a positive number, saying what is right", async () => {
    const res = await inProcess(
      ["run", "--dataset", "penguins", "--server", "http://x", "--model", "m", "--requests-per-minute", "0"],
      { WORKBENCH_DATA_DIR: join(tmp.dir, "bad") },
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(
      "--requests-per-minute must be a number above 0 (a minute's worth, such as 1200), or none to clear the server's limit; got \"0\"",
    );
  });
});

describe("the progress line", () => {
  const progress = (waiting: number | null): Progress => ({
    total: 10,
    done: 2,
    answered: 2,
    unknown: 0,
    escalated: 0,
    errors: 0,
    usage: { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 },
    cost: 0,
    latency: { p50: 1, p90: 1, p99: 1 },
    examplesPerSecond: 1,
    waitingForRateLimit: waiting,
    budget: null,
  });

  it("says how long the run waits for the rate limit, in whole seconds rounded up", () => {
    expect(rateLimitText(0.2)).toBe("waiting for rate limit, 1 s");
    expect(rateLimitText(7.3)).toBe("waiting for rate limit, 8 s");
    let text = "";
    const write = (s: string) => {
      text += s;
      return true;
    };
    const out = { write, isTTY: false } as unknown as NodeJS.WriteStream;
    const printer = new ProgressPrinter(out);
    printer.update(progress(12.1), true);
    expect(text).toContain("| waiting for rate limit, 13 s");
    text = "";
    printer.update(progress(null), true);
    expect(text).not.toContain("waiting");
  });
});
