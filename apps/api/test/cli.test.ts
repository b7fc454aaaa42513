import { readFileSync, writeFileSync } from "node:fs";
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
  it("on SQLite loads neither PostgreSQL's client nor the run queue's modules (memory and start-up)", async () => {
    // a preload that writes, as the process exits, the packages its CommonJS loader loaded
    const preload = join(tmp.dir, "loaded-packages.cjs");
    const out = join(tmp.dir, "loaded-packages.json");
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));`,
    );
    const child = workbench(
      ["serve", "--port", "0", "--no-reference"],
      { WORKBENCH_DATA_DIR: join(tmp.dir, "lazy") },
      ["--require", preload],
    );
    const url = listeningUrl(await child.firstLine);
    expect((await fetch(`${url}/api/runs`)).status).toBe(200);
    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    const packages = new Set(
      (JSON.parse(readFileSync(out, "utf8")) as string[]).flatMap((f) => {
        const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(f);
        return m ? [m[1]] : [];
      }),
    );
    // the loader saw the API's own packages (the check itself works) but none of the shared database's
    expect(packages.has("fastify")).toBe(true);
    expect(packages.has("better-sqlite3")).toBe(true);
    for (const name of ["pg", "bullmq", "ioredis"]) expect(packages.has(name)).toBe(false);
  }, 60_000);

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
    // the alias resolved to bayes-2, which has no checkpoint for the probe's question: the lexical model answered
    expect(check.probe.servedBy).toBe("bayes-2+lexical");
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
      ["run", "--dataset", "penguins", "--server", "http://x", "--model", "m", "--split", "calibration,dev"],
      '--split "dev" is not a split; --split takes train, calibration or test, comma-separated (--split calibration,test), or all',
    ],
    [
      ["report", "run_x", "--split", "dev"],
      '--split "dev" is not a split; --split takes train, calibration or test',
    ],
    [
      [
        "check",
        "--calibration",
        "c.json",
        "--dataset",
        "penguins",
        "--server",
        "http://x",
        "--model",
        "m",
        "--split",
        "tests",
      ],
      '--split "tests" is not a split; --split takes train, calibration or test',
    ],
    [
      ["fit", "run_x", "--out", "c.json", "--fit-split", "dev"],
      "--fit-split must be train, calibration or test",
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

describe("split lists", () => {
  const dataDir = join(tmp.dir, "splits");
  const env = { WORKBENCH_DATA_DIR: dataDir };

  it("run --split all asks every split of the dataset", async () => {
    const before = ref.requests.length;
    const res = await inProcess([...penguinsRun(ref.url, 20), "--split", "all"], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/done: 60\/60 examples of penguins \(train, calibration, test\)/);
    expect(ref.requests.length - before).toBe(60);
    const storage = openStorage(join(dataDir, "workbench.sqlite"));
    try {
      const [run] = await storage.listStoredRuns();
      expect(run.splits).toEqual(["train", "calibration", "test"]);
      const perSplit = new Map<string, number>();
      for (const p of await storage.listPredictions(run.id, { item: "species" })) {
        perSplit.set(p.split, (perSplit.get(p.split) ?? 0) + 1);
      }
      expect(Object.fromEntries(perSplit)).toEqual({ train: 20, calibration: 20, test: 20 });
    } finally {
      await storage.close();
    }
  });

  it("report takes a list (one report per split) and all (the run's rows pooled)", async () => {
    const listed = await inProcess(["report", "latest", "--split", "calibration,test", "--json"], env);
    expect(listed.code, listed.stderr).toBe(0);
    const json = JSON.parse(listed.stdout) as { splits: string[]; items: { split: string; n: number }[] };
    expect(json.splits).toEqual(["calibration", "test"]);
    expect(json.items.map((i) => [i.split, i.n])).toEqual([
      ["calibration", 20],
      ["calibration", 20],
      ["calibration", 20],
      ["test", 20],
      ["test", 20],
      ["test", 20],
    ]);
    const lacking = await inProcess(["report", "latest", "--split", "calibration,dev"], env);
    expect(lacking.code).toBe(2);
    const all = await inProcess(["report", "latest", "--split", "all", "--item", "species"], env);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^species \(.*\) on all: n 60 /m);
  });

  it("check --split all runs every split of the dataset and checks them pooled", async () => {
    const file = join(dataDir, "calibration.json");
    const fit = await inProcess(["fit", "latest", "--out", file], env);
    expect(fit.code, fit.stderr).toBe(0);
    expect(fit.stderr).toBe("");
    const before = ref.requests.length;
    const res = await inProcess(
      [
        "check",
        "--calibration",
        file,
        "--dataset",
        "penguins",
        "--server",
        ref.url,
        "--model",
        "lexical",
      ].concat(["--split", "all", "--limit", "20", "--json"]),
      env,
    );
    expect(res.stderr).toContain("60 examples of penguins (train, calibration, test)");
    expect(ref.requests.length - before).toBe(60);
    expect((JSON.parse(res.stdout) as { split: string }).split).toBe("all");
  });

  it("check refuses an unknown dataset and an unset key variable as run does, asking nothing", async () => {
    const file = join(dataDir, "calibration-refused.json");
    const fit = await inProcess(["fit", "latest", "--out", file], env);
    expect(fit.code, fit.stderr).toBe(0);
    const before = ref.requests.length;
    const check = (more: string[]) =>
      inProcess(["check", "--calibration", file, "--server", ref.url, "--model", "lexical", ...more], env);
    const unknown = await check(["--dataset", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--dataset "nope" is not a dataset; choose one of');
    expect(unknown.stderr).toContain("penguins");
    const unset = await check(["--dataset", "penguins", "--api-key-env", "UNSET_VAR_Y"]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain(
      "--api-key-env UNSET_VAR_Y: that environment variable is not set or empty",
    );
    expect(ref.requests.length).toBe(before);
  });

  it("fit on a run of one split fits on it and cross-fits, saying so in one line", async () => {
    const oneDir = join(tmp.dir, "one-split");
    const one = { WORKBENCH_DATA_DIR: oneDir };
    const run = await inProcess([...penguinsRun(ref.url, 40), "--split", "test"], one);
    expect(run.code, run.stderr).toBe(0);
    const file = join(oneDir, "calibration.json");
    const res = await inProcess(["fit", "latest", "--out", file], one);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe(
      "the run has only the test split: fitting on it and evaluating by 5-fold cross-fitting; run --split calibration,test for a held-out evaluation\n",
    );
    const written = JSON.parse(readFileSync(file, "utf8")) as {
      source: { fit_split: string; eval_split: string };
    };
    expect(written.source).toMatchObject({ fit_split: "test", eval_split: "crossfit" });
    expect(res.stdout).toContain("after-metrics: out-of-fold cross-fit estimates on test");

    // an explicit choice the run cannot serve fails, saying what would work
    const calibration = await inProcess(["fit", "latest", "--out", file, "--fit-split", "calibration"], one);
    expect(calibration.code).toBe(1);
    expect(calibration.stderr).toMatch(
      /^workbench fit: --fit-split calibration: run run_\S+ has no calibration split \(it ran test\); use --fit-split test, or start a run with --split calibration,test\n$/,
    );
    const sameRows = await inProcess(["fit", "latest", "--out", file, "--eval-split", "test"], one);
    expect(sameRows.code).toBe(1);
    expect(sameRows.stderr).toContain(
      "use --eval-split crossfit to fit on test and evaluate by cross-fitting",
    );
    const evalCalibration = await inProcess(
      ["fit", "latest", "--out", file, "--eval-split", "calibration"],
      one,
    );
    expect(evalCalibration.code).toBe(1);
    expect(evalCalibration.stderr).toContain("use --eval-split test or crossfit");
    const report = await inProcess(["report", "latest", "--split", "calibration,test"], one);
    expect(report.code).toBe(1);
    expect(report.stderr).toMatch(/has no calibration split; it ran test, so use --split test or all\n$/);
    // crossfit asked for: no note
    const asked = await inProcess(["fit", "latest", "--out", file, "--eval-split", "crossfit"], one);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toBe("");
  });

  it("report latest and fit latest say so when the data folder has no runs", async () => {
    const env = { WORKBENCH_DATA_DIR: join(tmp.dir, "no-runs") };
    const report = await inProcess(["report", "latest"], env);
    expect(report.code).toBe(1);
    expect(report.stderr).toBe(
      "workbench report: latest: the data folder has no runs yet; start one with workbench run (workbench run --help shows an example)\n",
    );
    const fit = await inProcess(["fit", "latest", "--out", join(tmp.dir, "none.json")], env);
    expect(fit.code).toBe(1);
    expect(fit.stderr).toContain("workbench fit: latest: the data folder has no runs yet");
  });
});
