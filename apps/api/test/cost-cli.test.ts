/** The command line's cost guard: --estimate sends nothing; --max-input-tokens stops the run (exit 3). */

import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStorage } from "../src/storage/sqlite.js";
import { inProcess, penguinsRun } from "./cli-in-process.js";
import { reference, tempDir } from "./helpers.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe("workbench run --estimate and --max-input-tokens", () => {
  it("prints the estimate without sending, and a capped run stops at its budget with exit code 3", async () => {
    const ref = await reference();
    const env = { WORKBENCH_DATA_DIR: join(tmp.dir, "cost") };
    try {
      const args = penguinsRun(ref.url, 10);
      const est = await inProcess([...args, "--estimate", "--input-price", "2", "--output-price", "8"], env);
      expect(est.code, est.stderr).toBe(0);
      expect(est.stdout).toMatch(
        /^estimate: 20 requests \(60 decisions\); estimated input tokens \d+, output tokens \d+; estimated cost [\d.]+ \(2 \/ 8 per million input \/ output tokens\)\n$/,
      );
      expect(ref.requests.length).toBe(0);
      const tokens = Number(/input tokens (\d+)/.exec(est.stdout)?.[1]);

      const cap = Math.round(tokens / 2);
      const res = await inProcess([...args, "--max-input-tokens", String(cap)], env);
      expect(res.code, res.stderr).toBe(3);
      expect(res.stderr).toContain("stopped: its budget is reached (input tokens");
      expect(res.stdout).toContain(`budget: input tokens`);
      expect(res.stdout).toContain(`of ${cap}`);
      const storage = openStorage(join(env.WORKBENCH_DATA_DIR, "workbench.sqlite"));
      const [run] = await storage.listStoredRuns();
      expect(run).toMatchObject({ status: "stopped", stopReason: "budget", maxInputTokens: cap });
      expect(run.counters.inputTokens).toBeLessThanOrEqual(cap);
      expect(ref.requests.length).toBe(run.counters.done);
      const [server] = await storage.listServers();
      expect(server).toMatchObject({ inputPricePerMillion: 2, outputPricePerMillion: 8 });
      await storage.close();
    } finally {
      await ref.close();
    }
  }, 60_000);

  it("refuses a cap that is not a positive number, saying what is right", async () => {
    const res = await inProcess(
      ["run", "--dataset", "penguins", "--server", "http://127.0.0.1:9", "--model", "m", "--max-cost=0"],
      { WORKBENCH_DATA_DIR: join(tmp.dir, "bad") },
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('--max-cost must be a number above 0 (such as 2.5), or none; got "0"');
  });
});
