import { join } from "node:path";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analysisData } from "../src/analysis/data.js";
import { openStorage } from "../src/storage/sqlite.js";
import { listeningUrl, runWorkbench, workbench } from "./child.js";
import { inProcess, penguinsRun } from "./cli-in-process.js";
import { reference, tempDir } from "./helpers.js";

const tmp = tempDir();
let ref: DecisionServerHandle;
let keyed: DecisionServerHandle;

beforeAll(async () => {
  ref = await reference();
  keyed = await reference({ apiKey: "sk-cli-right-key-0000" });
});

afterAll(async () => {
  await ref.close();
  await keyed.close();
  tmp.cleanup();
});

describe("workbench serve", () => {
  it("prints the address first, registers the embedded reference server once, and stops on SIGTERM", async () => {
    const dataDir = join(tmp.dir, "serve");
    const first = workbench(["serve", "--port", "0"], { WORKBENCH_DATA_DIR: dataDir });
    const url = listeningUrl(await first.firstLine);
    const servers = (await (await fetch(`${url}/api/servers`)).json()) as Record<string, unknown>[];
    expect(servers.length).toBe(1);
    expect(servers[0]).toMatchObject({
      name: "Reference server (embedded)",
      embedded: true,
      deterministic: true,
      models: ["workbench-latest", "bayes-1", "bayes-2", "lexical"],
    });
    const check = (await (
      await fetch(`${url}/api/servers/${servers[0].id}/check`, {
        method: "POST",
        headers: { "x-workbench": "1" },
      })
    ).json()) as {
      ok: boolean;
      probe: { servedBy: string };
    };
    expect(check.ok).toBe(true);
    expect(check.probe.servedBy).toBe("bayes-2");
    const keep = await fetch(`${url}/api/servers/${servers[0].id}`, { method: "DELETE" });
    expect(keep.status).toBe(409);
    expect(((await keep.json()) as { error: { code: string } }).error.code).toBe("server_embedded");
    const docs = await fetch(`${url}/docs/json`);
    expect(docs.status).toBe(200);
    expect(Object.keys(((await docs.json()) as { paths: object }).paths)).toContain("/api/runs/{id}/events");
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const again = workbench(["serve", "--port", "0"], { WORKBENCH_DATA_DIR: dataDir });
    const url2 = listeningUrl(await again.firstLine);
    const after = (await (await fetch(`${url2}/api/servers`)).json()) as { id: string; baseUrl: string }[];
    expect(after.map((s) => s.id)).toEqual([servers[0].id]);
    again.proc.kill("SIGINT");
    expect(await again.exited).toBe(0);
  });

  it("refuses to bind beyond 127.0.0.1 without a token", async () => {
    const res = await inProcess(["serve", "--host", "0.0.0.0", "--port", "0", "--no-reference"], {
      WORKBENCH_DATA_DIR: join(tmp.dir, "open"),
      WORKBENCH_TOKEN: "",
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("needs a bearer token");
    expect(res.stdout).toBe("");
  });

  it("requires the token on /api when one is given", async () => {
    const token = "tok-0123456789abcdef";
    const child = workbench(["serve", "--port", "0", "--no-reference", "--token", token], {
      WORKBENCH_DATA_DIR: join(tmp.dir, "token"),
    });
    const url = listeningUrl(await child.firstLine);
    const denied = await fetch(`${url}/api/servers`);
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error: { message: string } }).error.message).toContain(
      "Authorization: Bearer",
    );
    const wrong = await fetch(`${url}/api/servers`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const allowed = await fetch(`${url}/api/servers`, { headers: { authorization: `Bearer ${token}` } });
    expect(allowed.status).toBe(200);
    child.proc.kill("SIGTERM");
    await child.exited;
    expect(child.stderr()).not.toContain(token);
  });

  it("says what is wrong with a bad port", async () => {
    const res = await inProcess(["serve", "--port", "http"], { WORKBENCH_DATA_DIR: join(tmp.dir, "bad") });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("must be a port number from 0 to 65535");
  });
});

describe("workbench run and datasets", () => {
  it("runs a dataset against a server URL and stores it in the data folder", async () => {
    const dataDir = join(tmp.dir, "run");
    const res = await inProcess([...penguinsRun(ref.url, 3), "--concurrency", "2"], {
      WORKBENCH_DATA_DIR: dataDir,
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /^run run_\S+ done: 6\/6 examples of penguins \(calibration, test\) on lexical/,
    );
    expect(res.stderr).toMatch(/6\/6 \(100%\)/);
    const storage = openStorage(join(dataDir, "workbench.sqlite"));
    const runs = await storage.listStoredRuns();
    expect(runs.length).toBe(1);
    expect(runs[0]).toMatchObject({ status: "done", total: 6, dataset: "penguins" });
    expect((await storage.listPredictions(runs[0].id)).length).toBe(18);
    await storage.close();
  });

  it("stores every decision's analysis columns before the process exits", async () => {
    // a workbench started later computes the run's reports from them
    const dataDir = join(tmp.dir, "run-prepared");
    const res = await runWorkbench(penguinsRun(ref.url, 40), { WORKBENCH_DATA_DIR: dataDir });
    expect(res.code, res.stderr).toBe(0);
    const storage = openStorage(join(dataDir, "workbench.sqlite"));
    try {
      const [run] = await storage.listStoredRuns();
      expect(run).toMatchObject({ status: "done", total: 80 });
      for (let item = 0; item < 3; item++) expect((await storage.itemColumns(run.id, item)).n).toBe(80);
      const report = await analysisData(storage).report(await analysisData(storage).run(run.id), {});
      expect(report.n).toBeGreaterThan(0);
    } finally {
      await storage.close();
    }
  });

  it("exits 1 with the service's message on a wrong key, and never prints the key", async () => {
    const res = await inProcess([...penguinsRun(keyed.url, 2), "--api-key-env", "MY_KEY"], {
      WORKBENCH_DATA_DIR: join(tmp.dir, "wrong"),
      MY_KEY: "sk-cli-wrong-key-1111",
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("failed: the decision service at");
    expect(res.stderr).toContain("401");
    expect(res.stdout + res.stderr).not.toContain("sk-cli-wrong-key-1111");
  });

  it.each([
    [["run", "--dataset", "penguins", "--server", "http://x"], "workbench run needs --model"],
    [
      ["run", "--dataset", "nope", "--server", "http://x", "--model", "m"],
      '--dataset "nope" is not a dataset',
    ],
    [
      ["run", "--dataset", "penguins", "--server", "http://x", "--model", "m", "--concurrency", "0"],
      "--concurrency must be a whole number from 1 to 256",
    ],
    [
      [
        "run",
        "--dataset",
        "penguins",
        "--server",
        "http://x",
        "--model",
        "m",
        "--api-key-env",
        "UNSET_VAR_X",
      ],
      "UNSET_VAR_X: that environment variable is not set",
    ],
    [
      ["run", "--dataset", "penguins", "--server", "http://x", "--model", "m", "--split", "dev"],
      'split "dev" is not one of',
    ],
    [["run", "--colour", "red"], "unknown flag '--colour' (the flags of workbench run: --dataset VALUE"],
    [["frobnicate"], 'unknown command "frobnicate"'],
  ])("workbench %j exits 2 saying what is wrong", async (args, message) => {
    const res = await inProcess(args, { WORKBENCH_DATA_DIR: join(tmp.dir, "usage") });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
  });

  it("lists the datasets", async () => {
    const res = await inProcess(["datasets"], { WORKBENCH_DATA_DIR: join(tmp.dir, "list") });
    expect(res.code).toBe(0);
    const names = res.stdout
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual(["spam-assassin", "penguins", "brown-genres", "seattle-weather"]);
  });
});
