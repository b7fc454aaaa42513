// Report endpoints on 100,000-prediction runs: synthetic decisions written through the SQLite storage, then every
// analysis endpoint timed over HTTP (cold = first call, loading and converting the rows; warm = cached), against a
// baseline measured in the same run: reading the same rows from SQLite with storage.listPredictions.
//
//   node --expose-gc --import tsx bench/reports.ts [--examples 100000]
//
// The API runs in its own process as `pnpm start` runs it (the built workbench under plain node, no reference server:
// bench/serve-child.mjs; build the workspace first), started twice on the same data folder; calls are timed once its
// start-up preparation has ended (the analysis compiled; the reports of the finished runs not prepared yet, within
// its bounds: here all four runs written). Each call's label says whether its run was prepared; a run that was not
// has its predictions read and converted by its first report. One such run is measured on purpose: a third run of
// the first scenario, written by another child process while the first API process runs. "after a restart" reads
// back what the first process stored. Each process reports its peak resident memory.
//
// Scenario "one item": one 5-option item (seattle-weather's task), 100,000 examples all on the test split, so one
// report covers all 100,000 predictions. Scenario "three items": penguins' task (choice, score, choice + not
// stated), 33,334 examples x 3 items on calibration and test (each report covers about a sixth of the run).

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { mulberry32 } from "@decision-workbench/calibration";
import {
  bundledTask,
  itemOptionNames,
  NOT_STATED,
  type Split,
  type Task,
} from "@decision-workbench/datasets";
import { openStorage, type SqliteStorage } from "../src/storage/sqlite.js";
import type { PredictionRow } from "../src/storage/types.js";
import { storedRun } from "../test/fixtures.js";

const { values } = parseArgs({
  options: { examples: { type: "string" }, write: { type: "string" }, late: { type: "string" } },
});
const EXAMPLES = Number(values.examples ?? 100_000);

/** The two scenarios (see the top of this file). */
const SCENARIOS = [
  { name: "one item", task: bundledTask("seattle-weather"), examples: EXAMPLES, splits: ["test"] as Split[] },
  {
    name: "three items",
    task: bundledTask("penguins"),
    examples: Math.ceil(EXAMPLES / 3),
    splits: ["calibration", "test"] as Split[],
  },
];
const runIds = (s: (typeof SCENARIOS)[number]) => {
  const base = `run_${s.task.name.replace(/-/g, "")}`;
  return { a: `${base}_a`, b: `${base}_b`, late: `${base}_c` };
};

/** Child process: writes a third run of the first scenario into DIR/workbench.sqlite while the API process runs. */
async function writeLate(dir: string): Promise<void> {
  const storage = openStorage(join(dir, "workbench.sqlite"));
  const s = SCENARIOS[0];
  await syntheticRun(storage, runIds(s).late, s.task, s.examples, s.splits, 3, "bayes-3");
  await storage.close();
}

/** Child process: writes both runs of every scenario into DIR/workbench.sqlite, so the API process measures only itself. */
async function writeAll(dir: string): Promise<void> {
  const storage = openStorage(join(dir, "workbench.sqlite"));
  for (const s of SCENARIOS) {
    const t0 = performance.now();
    const { a, b } = runIds(s);
    await syntheticRun(storage, a, s.task, s.examples, s.splits, 1, "bayes-1");
    await syntheticRun(storage, b, s.task, s.examples, s.splits, 2, "bayes-2");
    process.stdout.write(
      `${s.name}: wrote 2 runs of ${s.examples * s.task.items.length} predictions in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
  }
  await storage.close();
}

function softmax(z: number[]): number[] {
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => Math.round((v / s) * 1e6) / 1e6);
}

/** Writes a finished run of synthetic decisions (overconfident, 1% escalated) through the storage. */
async function syntheticRun(
  storage: SqliteStorage,
  id: string,
  task: Task,
  examples: number,
  splits: Split[],
  seed: number,
  servedBy: string,
): Promise<void> {
  const rng = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng.float())) * Math.cos(2 * Math.PI * rng.float());
  const run = storedRun(id, {
    dataset: task.name,
    datasetHash: "0".repeat(64),
    serverId: "srv_bench",
    serverName: "bench",
    endpoint: "http://127.0.0.1:9/v1/decision",
    model: "workbench-latest",
    fingerprint: "decision|http://127.0.0.1:9/v1/decision|workbench-latest",
    splits,
    concurrency: 16,
    startedAt: new Date().toISOString(),
    total: examples,
  });
  await storage.insertRun(run);
  const items = task.items.map((item) => ({
    item,
    names: [...itemOptionNames(item), ...(item.notStated ? [NOT_STATED] : [])],
  }));
  for (let e = 0; e < examples; e++) {
    const exampleId = `ex${String(e).padStart(6, "0")}`;
    const split = splits[e % splits.length];
    const record = { endpoint: run.endpoint, model: run.model, served_by: servedBy, ms: 12, questions: 3 };
    const predictions: PredictionRow[] = items.map(({ item, names }) => {
      const k = names.length;
      const gold = names[Math.min(k - 1, Math.floor(rng.float() ** 1.5 * k))];
      const base: PredictionRow = {
        runId: id,
        exampleId,
        split,
        item: item.name,
        gold,
        status: "escalated",
        answer: null,
        confidence: null,
        probabilities: null,
        logits: [],
        unknown: null,
        reason: "the decision service did not answer after 3 attempts: reset",
        record,
        servedBy,
      };
      if (rng.float() < 0.01) return base;
      const logits = names.map((n) => (n === gold ? 1.6 : 0) + 1.2 * gauss());
      const ps = softmax(logits.map((z) => z / 0.6));
      const probabilities: Record<string, number> = {};
      let best = 0;
      names.forEach((n, j) => {
        probabilities[n] = ps[j];
        if (ps[j] > ps[best]) best = j;
      });
      const unknown = item.notStated && names[best] === NOT_STATED;
      return {
        ...base,
        status: unknown ? "unknown" : "answered",
        answer: unknown ? null : names[best],
        confidence: ps[best],
        probabilities,
        logits,
        reason: unknown ? "not stated" : null,
      };
    });
    await storage.recordExample({
      runId: id,
      exampleId,
      ordinal: e,
      split,
      ms: 12,
      servedBy,
      inputTokens: 100,
      outputTokens: 3,
      reasoningTokens: 0,
      cost: 0,
      failed: predictions.every((p) => p.status === "escalated"),
      predictions,
    });
  }
  await storage.updateRun(id, { status: "done", finishedAt: new Date().toISOString() });
}

interface Timing {
  scenario: string;
  process: string;
  call: string;
  ms: number;
  kb: number;
  /** The API process's peak RSS so far, in MB. */
  peak: number;
}

/** The bench measures the built workbench: its newest module must be newer than every source module. */
function checkBuilt(): string {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const built = join(root, "dist", "cli", "serve.js");
  if (!existsSync(built)) {
    throw new Error(`${built} is missing: build it first (pnpm --filter @decision-workbench/api... build)`);
  }
  // the newest .ts (src) or .js (dist) file under dir
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((e) =>
        e.isDirectory()
          ? newest(join(dir, e.name))
          : /\.[jt]s$/.test(e.name) && !e.name.endsWith(".d.ts")
            ? statSync(join(dir, e.name)).mtimeMs
            : 0,
      ),
    );
  if (newest(join(root, "src")) > newest(join(root, "dist"))) {
    throw new Error(
      "apps/api/src is newer than apps/api/dist: build it first (pnpm --filter @decision-workbench/api... build)",
    );
  }
  return join(root, "bench", "serve-child.mjs");
}

/**
 * Runs this file as a child process in a writer mode (`--write` or `--late`) on the bench's data folder; returns
 * what it printed.
 */
function writeInChild(mode: "--write" | "--late", dir: string): string {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), mode, dir, "--examples", String(EXAMPLES)],
    { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" },
  );
  if (child.status !== 0) throw new Error(`writing the runs (${mode}) failed (exit ${child.status})`);
  return child.stdout.trim();
}

/**
 * An API process started on the bench's data folder (`script`: bench/serve-child.mjs, from checkBuilt): its URL, its
 * memory, and its end.
 */
async function apiProcess(dir: string, script: string) {
  // the built workbench under plain node, as `pnpm start` runs it
  const child = spawn(process.execPath, ["--expose-gc", script, dir], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const queued: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => (waiting.length ? waiting.shift()?.(line) : queued.push(line)));
  lines.on("close", () => {
    for (const w of waiting.splice(0)) w(undefined);
  });
  const next = async (): Promise<string> => {
    const line = queued.length
      ? queued.shift()
      : await new Promise<string | undefined>((r) => waiting.push(r));
    if (line === undefined) throw new Error("the API process ended");
    return line;
  };
  const started = JSON.parse(await next()) as { port: number; prepared: string[]; ms: number };
  return {
    url: `http://127.0.0.1:${started.port}`,
    /** The runs the start-up preparation stored reports of, and how long start-up and preparation took. */
    prepared: new Set(started.prepared),
    preparedMs: started.ms,
    async stats(): Promise<{ rss: number; heap: number; peak: number }> {
      child.stdin.write("stats\n");
      return JSON.parse(await next());
    },
    async stop(): Promise<void> {
      const ended = new Promise((r) => child.once("exit", r));
      child.stdin.end();
      await ended;
    },
  };
}

async function main(): Promise<void> {
  const serveChild = checkBuilt(); // before the runs are written (tens of seconds)
  const loadStart = loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
  const dir = mkdtempSync(join(tmpdir(), "wb-bench-reports-"));
  const written = writeInChild("--write", dir);
  const timings: Timing[] = [];
  let api = await apiProcess(dir, serveChild);
  let processName = "first start";

  async function time(
    scenario: string,
    call: string,
    path: string,
    init?: RequestInit,
    expected = [200, 201],
  ): Promise<unknown> {
    const t0 = performance.now();
    const res = await fetch(api.url + path, init);
    const text = await res.text();
    const ms = performance.now() - t0;
    if (!expected.includes(res.status)) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    const { peak } = await api.stats();
    timings.push({ scenario, process: processName, call, ms, kb: text.length / 1024, peak });
    return path.endsWith(".csv") || res.status >= 300 ? null : JSON.parse(text);
  }

  // baseline, in this process (not the API's): reading the first item's rows from SQLite, best of 3
  const storage = openStorage(join(dir, "workbench.sqlite"));
  const baselines: Record<string, number> = {};
  for (const s of SCENARIOS) {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const r0 = performance.now();
      await storage.listPredictions(runIds(s).a, { item: s.task.items[0].name });
      best = Math.min(best, performance.now() - r0);
    }
    baselines[s.name] = best;
  }
  await storage.close();

  const memory: string[] = [];
  for (const s of SCENARIOS) {
    const { a, b } = runIds(s);
    const first = s.task.items[0].name;
    const q = s.splits.includes("test") ? "split=test" : "split=all";
    const at = `/api/runs/${a}/report?item=${first}&${q}`;
    const prepared = (id: string) => (api.prepared.has(id) ? "prepared at start-up" : "not prepared");
    await time(
      s.name,
      api.prepared.has(a)
        ? "report (first look; prepared at start-up)"
        : "report (cold: predictions read, converted, stored)",
      at,
    );
    await time(s.name, "report (warm)", at);
    await time(s.name, "report binning=mass (base reused)", `${at}&binning=mass`);
    await time(s.name, "report view=classwise (base reused)", `${at}&view=classwise`);
    await time(s.name, "report bins=10 (new base)", `${at}&bins=10`);
    await time(s.name, "report ci=all (400 when too large)", `${at}&ci=all`, undefined, [200, 400]);
    await time(
      s.name,
      "items confident-wrong",
      `/api/runs/${a}/items?item=${first}&filter=confident-wrong&limit=50`,
    );
    await time(
      s.name,
      "items next page",
      `/api/runs/${a}/items?item=${first}&filter=confident-wrong&offset=50&limit=50`,
    );
    await time(s.name, "report.json (every item)", `/api/runs/${a}/report.json?${q}`);
    await time(
      s.name,
      `compare (first; run b ${prepared(b)})`,
      `/api/compare?runs=${a},${b}&item=${first}&${q}`,
    );
    await time(s.name, "compare (warm)", `/api/compare?runs=${a},${b}&item=${first}&${q}`);
    await time(s.name, "export.csv (every row)", `/api/runs/${a}/export.csv`);
    if (s === SCENARIOS[0]) {
      // the one report that has to convert a run: a run stored after start-up by a process that did not prepare it
      // (the engine prepares the runs it finishes, `workbench run` included; start-up prepares the others)
      writeInChild("--late", dir);
      await time(
        s.name,
        "report of a run stored after start-up, not prepared (cold: read, converted, stored)",
        `/api/runs/${runIds(s).late}/report?item=${first}&${q}`,
      );
    }
    if (s.splits.includes("calibration")) {
      await time(s.name, "fit (POST calibrations, 1 item)", `/api/runs/${a}/calibrations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ item: first, methods: "auto" }),
      });
    }
  }
  const firstStats = await api.stats();
  memory.push(
    `first start: start-up and its preparation (compiling, ${api.prepared.size} recent runs prepared) took ${api.preparedMs.toFixed(0)} ms before the first call; peak RSS ${firstStats.peak.toFixed(0)} MB, RSS now ${firstStats.rss.toFixed(0)} MB, JS heap after a full GC ${firstStats.heap.toFixed(0)} MB`,
  );
  await api.stop();

  // a restart: what the first process stored beside the finished runs is read back
  api = await apiProcess(dir, serveChild);
  processName = "after a restart";
  for (const s of SCENARIOS) {
    const { a, b } = runIds(s);
    const first = s.task.items[0].name;
    const q = s.splits.includes("test") ? "split=test" : "split=all";
    const at = `/api/runs/${a}/report?item=${first}&${q}`;
    await time(s.name, "report (stored)", at);
    await time(s.name, "report bins=12 (from the stored item data)", `${at}&bins=12`);
    await time(
      s.name,
      api.prepared.has(b)
        ? "report of run b (prepared at this start)"
        : "report of run b (item data stored by compare)",
      `/api/runs/${b}/report?item=${first}&${q}`,
    );
    await time(
      s.name,
      "compare (item data stored, comparison cold)",
      `/api/compare?runs=${a},${b}&item=${first}&${q}&bins=12`,
    );
  }
  const secondStats = await api.stats();
  memory.push(
    `after a restart: start-up and its preparation (${api.prepared.size} runs prepared) took ${api.preparedMs.toFixed(0)} ms; peak RSS ${secondStats.peak.toFixed(0)} MB, RSS now ${secondStats.rss.toFixed(0)} MB, JS heap after a full GC ${secondStats.heap.toFixed(0)} MB`,
  );
  await api.stop();

  const lines = [
    written,
    "",
    `examples per scenario: ${EXAMPLES} predictions; Node ${process.version}; ${new Date().toISOString()}; load average at start ${loadStart}, at end ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} on ${cpus().length} cores`,
    "",
    "| scenario | API process | call | ms | x baseline | payload KB | peak RSS MB |",
    "|---|---|---|---:|---:|---:|---:|",
  ];
  for (const s of SCENARIOS) {
    lines.push(
      `| ${s.name} | (bench process) | baseline: listPredictions of the item | ${baselines[s.name].toFixed(0)} | 1.00 | | |`,
    );
    for (const t of timings.filter((x) => x.scenario === s.name)) {
      lines.push(
        `| ${s.name} | ${t.process} | ${t.call} | ${t.ms.toFixed(0)} | ${(t.ms / baselines[s.name]).toFixed(2)} | ${t.kb.toFixed(0)} | ${t.peak.toFixed(0)} |`,
      );
    }
  }
  lines.push("", "API process memory (target: under 300 MB):", ...memory.map((m) => `- ${m}`));
  process.stdout.write(`${lines.join("\n")}\n`);
  rmSync(dir, { recursive: true, force: true });
}

if (values.write) await writeAll(values.write);
else if (values.late) await writeLate(values.late);
else await main();
