// The API's targets (issue 20), each against a baseline measured in the same run, appended to bench/RESULTS.md:
//
//   (a) cold report on a finished 100,000-prediction run: the API process started fresh on the data folder, the
//       first GET of the report; baseline: the calibration library's own time for the calls that report makes, on
//       the same arrays, first call in a fresh process (and best of 3 after it)
//   (b) API start-up to "listening" with 10 finished 100,000-prediction runs in the data folder; baseline: the same
//       start-up on an empty data folder
//   (c) a report on a 1,000-example run: the first GET in a fresh API process, and a second one with other bins in
//       the same process; baseline: the library's time on the same arrays, as in (a)
//   (d) a 100,000-example run's peak RSS, and (e) engine / bare scorer loop at concurrency 32: bench/engine.ts
//       (a real run against the reference server), whose output is quoted; the RSS's baseline is the API's RSS
//       before its runs, after the dataset's upload, whose own peak is told apart
//
//   node --import tsx bench/targets.ts [--label TEXT] [--engine-examples 100000] [--engine-rounds 2] [--no-engine]
//                                      [--no-append]
//
// Run from apps/api after building the workspace (the API runs from dist). The runs are written through the
// storage by bench/synthetic-runs.ts: seattle-weather's one 5-option item, every example on the test split (one
// report covers every prediction); the 10 runs of (b) are the first one's rows copied under new ids by SQL.

import { type ChildProcess, execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  bootstrap,
  calibrationReport,
  classwiseReliability,
  confusionMatrix,
  type Labelled,
  optionScores,
  smoothReliability,
  subset,
  topLabel,
} from "@decision-workbench/calibration";
import { bundledTask, itemOptionNames } from "@decision-workbench/datasets";
import Database from "better-sqlite3";
import { openStorage } from "../src/storage/sqlite.js";
import type { PredictionRow } from "../src/storage/types.js";
import { startApi } from "./api-child.js";
import { rssMb } from "./proc-memory.js";
import { type RunPlan, writeRun } from "./synthetic-runs.js";

const here = dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    label: { type: "string", default: "" },
    "engine-examples": { type: "string", default: "100000" },
    "engine-rounds": { type: "string", default: "2" },
    "no-engine": { type: "boolean" },
    "no-append": { type: "boolean" },
    library: { type: "string" },
  },
});

/** The arrays a report hands the library, and the resamples the API's report used. */
interface LibraryInput {
  k: number;
  probs: number[];
  gold: number[];
  resamples: number;
  secondary: number;
}

/**
 * Child mode (`--library FILE`): times the library calls an item report makes (report.ts, metrics.ts: the
 * calibration report, option scores, smooth reliability, confusion matrix, per-option reliability, and the
 * secondary bootstrap of macro F1 when the report resampled it), first call and best of 3 after it.
 */
function libraryTimes(file: string): { first: number; warm: number } {
  const input = JSON.parse(readFileSync(file, "utf8")) as LibraryInput;
  const data: Labelled = {
    probs: Float64Array.from(input.probs),
    k: input.k,
    gold: Int32Array.from(input.gold),
  };
  const once = () => {
    const t0 = performance.now();
    const report = calibrationReport(data, {
      bins: 15,
      resamples: input.resamples,
      seed: 0,
      interval: "wilson",
    });
    optionScores(data);
    if (input.secondary > 0) {
      bootstrap(input.gold.length, (idx) => optionScores(subset(data, idx) as Labelled).macroF1, {
        resamples: input.secondary,
        seed: 0,
      });
    }
    smoothReliability(topLabel(data), { points: 101, sigma: report.smoothEce.sigma });
    confusionMatrix(data);
    classwiseReliability(data, { bins: 15, binning: "width", interval: "wilson" });
    return performance.now() - t0;
  };
  const first = once();
  const warm = Math.min(once(), once(), once());
  return { first, warm };
}

/** The library's times in a fresh process (its first call is as cold as the API's first report). */
function libraryInChild(input: LibraryInput): { first: number; warm: number } {
  const file = join(mkdtempSync(join(tmpdir(), "wb-targets-lib-")), "input.json");
  writeFileSync(file, JSON.stringify(input));
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "--library", file],
    {
      encoding: "utf8",
    },
  );
  rmSync(dirname(file), { recursive: true, force: true });
  return JSON.parse(out);
}

/** The library's times in three fresh processes: the median first call and the median warm one. */
function libraryThrice(input: LibraryInput): { first: number; warm: number } {
  const runs = [0, 1, 2].map(() => libraryInChild(input));
  return { first: median(runs.map((r) => r.first)), warm: median(runs.map((r) => r.warm)) };
}

/** Collects the usable rows of one single-label item (answered with a gold option) as the library's arrays. */
function collector(item: string, options: string[]) {
  const probs: number[] = [];
  const gold: number[] = [];
  return {
    onRow(r: PredictionRow) {
      if (r.item !== item || r.status === "escalated" || !r.probabilities || typeof r.gold !== "string")
        return;
      const g = options.indexOf(r.gold);
      if (g < 0) return;
      for (const o of options) probs.push(r.probabilities[o]);
      gold.push(g);
    },
    input: (resamples: number, secondary: number): LibraryInput => ({
      k: options.length,
      probs,
      gold,
      resamples,
      secondary,
    }),
  };
}

async function stopApi(proc: ChildProcess): Promise<void> {
  const ended = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGTERM");
  await ended;
}

/** GET a path: the time in ms to its whole body, its status and its text. */
async function timedGet(url: string, path: string): Promise<{ ms: number; status: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(url + path);
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}

/** GET a report; its time in ms and its resamples. */
async function timedReport(
  url: string,
  path: string,
): Promise<{ ms: number; resamples: { headline: number; secondary: number } }> {
  const { ms, status, text } = await timedGet(url, path);
  if (status !== 200) throw new Error(`${path}: HTTP ${status} ${text.slice(0, 300)}`);
  return { ms, resamples: JSON.parse(text).resamples };
}

/** Copies every row of run `from` under the id `to`, in every table that has rows of it. */
function copyRun(db: Database.Database, from: string, to: string): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  // the runs table first (the others reference it)
  for (const t of tables.sort((a, b) => Number(b === "runs") - Number(a === "runs"))) {
    const cols = (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
    const key = t === "runs" ? "id" : cols.includes("run_id") ? "run_id" : null;
    if (!key) continue;
    const select = cols.map((c) => (c === key ? "?" : `"${c}"`)).join(", ");
    db.prepare(
      `INSERT INTO ${t} (${cols.map((c) => `"${c}"`).join(", ")}) SELECT ${select} FROM ${t} WHERE ${key} = ?`,
    ).run(to, from);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x: number, d = 0) =>
  x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

interface Row {
  target: string;
  measured: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: boolean | null;
}

/** bench/engine.ts in a child process: its output, and the figures the targets read from it. */
function engineBench(examples: string, rounds: string) {
  const out = execFileSync(
    process.execPath,
    [
      ...process.execArgv,
      join(here, "engine.ts"),
      "--examples",
      examples,
      "--rounds",
      rounds,
      "--concurrency",
      "32",
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], cwd: join(here, "..") },
  );
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? Number.NaN);
  return {
    out,
    ratio: num(/ratio workbench \/ scorer loop: ([\d.]+) of the medians/),
    roundRatio: num(/of the medians, ([\d.]+) median of the rounds' ratios/),
    loop: num(/plain scorer loop: (\d+) examples\/s/),
    workbench: num(/workbench run:\s+(\d+) examples\/s/),
    peak: num(/API peak RSS through the runs: (\d+) MB/),
    withReports: num(/MB \(target < 300 MB\), (\d+) MB with their reports read/),
    idle: num(/; (\d+) MB after the upload of the dataset/),
    upload: num(/MB after the upload of the dataset, (\d+) MB peak through it/),
  };
}

async function main(): Promise<void> {
  const loadStart = loadavg()[0];
  const dir = mkdtempSync(join(tmpdir(), "wb-targets-"));
  const empty = mkdtempSync(join(tmpdir(), "wb-targets-empty-"));
  const rows: Row[] = [];
  const notes: string[] = [];
  let engineOut = "";
  try {
    const task = bundledTask("seattle-weather");
    const item = task.items[0];
    const options = itemOptionNames(item);
    const plan = (id: string, examples: number, seed: number): RunPlan => ({
      id,
      dataset: "seattle-weather",
      splits: ["test"],
      examples,
      seed,
      model: "bayes-1",
      served: ["bayes-1", "bayes-1"],
      status: "done",
    });
    const big = collector(item.name, options);
    const small = collector(item.name, options);
    const t0 = performance.now();
    const storage = openStorage(join(dir, "workbench.sqlite"));
    await writeRun(storage, plan("run_big_0", 100_000, 11), big.onRow);
    await storage.close();
    notes.push(
      `wrote a 100,000-example run through the storage in ${fmt((performance.now() - t0) / 1000, 1)} s`,
    );
    const reportOf = (id: string, q = "") => `/api/runs/${id}/report?item=${item.name}&split=test${q}`;

    // (a) the first report of the 100k run in a fresh API process (three processes)
    const colds: number[] = [];
    const peaks: number[] = [];
    let cold = { ms: 0, resamples: { headline: 0, secondary: 0 } };
    for (let i = 0; i < 3; i++) {
      const api = await startApi(dir);
      cold = await timedReport(api.url, reportOf("run_big_0"));
      colds.push(cold.ms);
      peaks.push(rssMb(api.proc.pid as number));
      await stopApi(api.proc);
    }
    const libBig = libraryThrice(big.input(cold.resamples.headline, cold.resamples.secondary));
    const coldMs = median(colds);
    rows.push({
      target: "(a) cold report, finished 100k-prediction run, fresh API process (median of 3)",
      measured: `${fmt(coldMs)} ms (${colds.map((x) => fmt(x)).join(", ")}; API peak RSS ${fmt(Math.max(...peaks))} MB)`,
      baseline: `library on the same arrays, fresh process (median of 3): ${fmt(libBig.first)} ms first call, ${fmt(libBig.warm)} ms warm`,
      ratio: `${fmt(coldMs / libBig.first, 2)} (${fmt(coldMs / libBig.warm, 2)} of warm)`,
      goal: "< 500 ms and <= 2x",
      met: coldMs < 500 && coldMs / libBig.first <= 2,
    });

    // (c) a 1k run's report: the first GET in a fresh API process, then another (bins=10) in the same process, in
    // three processes. Reports are not stored, so each process starts as cold as the first.
    const writer = openStorage(join(dir, "workbench.sqlite"));
    await writeRun(writer, plan("run_small", 1_000, 12), small.onRow);
    await writer.close();
    const firsts: number[] = [];
    const seconds: number[] = [];
    let first1k = cold;
    for (let i = 0; i < 3; i++) {
      const api = await startApi(dir);
      first1k = await timedReport(api.url, reportOf("run_small"));
      firsts.push(first1k.ms);
      seconds.push((await timedReport(api.url, reportOf("run_small", "&bins=10"))).ms);
      await stopApi(api.proc);
    }
    const libSmall = libraryThrice(small.input(first1k.resamples.headline, first1k.resamples.secondary));
    rows.push({
      target: "(c) report on a 1k run, first GET in a fresh API process (median of 3)",
      measured: `${fmt(median(firsts))} ms (${firsts.map((x) => fmt(x)).join(", ")})`,
      baseline: `library (median of 3): ${fmt(libSmall.first)} ms first call, ${fmt(libSmall.warm)} ms warm`,
      ratio: `${fmt(median(firsts) / libSmall.first, 2)}`,
      goal: "< 100 ms",
      met: median(firsts) < 100,
    });
    rows.push({
      target: "(c) report on a 1k run, second GET (bins=10, not cached; median of 3)",
      measured: `${fmt(median(seconds))} ms (${seconds.map((x) => fmt(x)).join(", ")})`,
      baseline: `library warm: ${fmt(libSmall.warm)} ms`,
      ratio: `${fmt(median(seconds) / libSmall.warm, 2)}`,
      goal: "< 100 ms",
      met: median(seconds) < 100,
    });

    // (b) start-up with 10 finished 100k runs (the first one's rows copied 9 times), against an empty folder
    const t1 = performance.now();
    const db = new Database(join(dir, "workbench.sqlite"));
    db.transaction(() => {
      for (let i = 1; i < 10; i++) copyRun(db, "run_big_0", `run_big_${i}`);
    })();
    db.close();
    notes.push(`copied the 100k run 9 times by SQL in ${fmt((performance.now() - t1) / 1000, 1)} s`);
    const startups: number[] = [];
    const emptyStartups: number[] = [];
    // GET /api/runs in each process: the first ever reads every run's answers for its stats and stores them
    const lists: number[] = [];
    const emptyLists: number[] = [];
    for (let i = 0; i < 3; i++) {
      let api = await startApi(empty);
      emptyStartups.push(api.ms);
      emptyLists.push((await timedGet(api.url, "/api/runs")).ms);
      await stopApi(api.proc);
      api = await startApi(dir);
      startups.push(api.ms);
      const list = await timedGet(api.url, "/api/runs");
      lists.push(list.ms);
      if (i === 0) {
        const runs = list.status === 200 ? (JSON.parse(list.text) as unknown) : null;
        notes.push(
          Array.isArray(runs)
            ? `the API lists ${runs.length} runs in the data folder of (b)`
            : `GET /api/runs on the data folder of (b) answered HTTP ${list.status}: ${list.text.slice(0, 300)}`,
        );
      }
      await stopApi(api.proc);
    }
    rows.push({
      target: "(b) start-up to listening, 10 finished 100k runs (median of 3)",
      measured: `${fmt(median(startups))} ms (${startups.map((x) => fmt(x)).join(", ")})`,
      baseline: `empty data folder: ${fmt(median(emptyStartups))} ms`,
      ratio: `${fmt(median(startups) / median(emptyStartups), 2)}`,
      goal: "< 2,000 ms",
      met: median(startups) < 2000,
    });
    rows.push({
      target: "GET /api/runs, 10 finished 100k runs, first in each fresh process of (b)",
      measured: `${fmt(lists[0])} ms the first ever (stats read and stored), then ${lists
        .slice(1)
        .map((x) => fmt(x))
        .join(", ")} ms`,
      baseline: `empty data folder: ${fmt(median(emptyLists))} ms`,
      ratio: `${fmt(median(lists.slice(1)) / median(emptyLists), 2)} (after the first)`,
      goal: "",
      met: null,
    });

    // (d) and (e): bench/engine.ts
    if (!values["no-engine"]) {
      const e = engineBench(values["engine-examples"], values["engine-rounds"]);
      rows.push({
        target: `(d) peak RSS of the API through ${fmt(Number(values["engine-examples"]))}-example runs (engine.ts)`,
        measured: `${fmt(e.peak)} MB (${fmt(e.withReports)} MB with their reports read)`,
        baseline: `API before its runs: ${fmt(e.idle)} MB (the dataset's upload before them: ${fmt(e.upload)} MB peak)`,
        ratio: fmt(e.peak / e.idle, 2),
        goal: "< 300 MB",
        met: e.peak < 300,
      });
      rows.push({
        target: `(e) engine / bare scorer loop, concurrency 32, ${values["engine-rounds"]} rounds (engine.ts)`,
        measured: `${fmt(e.workbench)} examples/s`,
        baseline: `scorer loop: ${fmt(e.loop)} examples/s`,
        ratio: `${fmt(e.ratio, 2)} of the medians (${fmt(e.roundRatio, 2)} median of the rounds' ratios)`,
        goal: ">= 0.8",
        met: e.ratio >= 0.8,
      });
      engineOut = e.out.trim();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }

  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
    encoding: "utf8",
    cwd: here,
  }).trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--", "../src"], {
    encoding: "utf8",
    cwd: here,
  }).trim();
  const head = `### ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, commit ${commit}${dirty ? " (src with uncommitted changes)" : ""}${values.label ? `, ${values.label}` : ""}`;
  const lines = [
    head,
    "",
    `Node ${process.version}, ${cpus().length} cores, load average ${loadStart.toFixed(1)} at the start and ${loadavg()[0].toFixed(1)} at the end.`,
    "",
    "| target | measured | baseline (same run) | ratio | goal | met |",
    "|---|---:|---|---:|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.target} | ${r.measured} | ${r.baseline} | ${r.ratio} | ${r.goal} | ${r.met === null ? "" : r.met ? "yes" : "no"} |`,
    ),
    "",
    ...notes.map((n) => `- ${n}`),
    "",
    ...(engineOut ? ["bench/engine.ts said:", "", "```text", engineOut, "```", ""] : []),
  ];
  const text = `${lines.join("\n")}\n`;
  process.stdout.write(text);
  if (!values["no-append"]) {
    const results = join(here, "RESULTS.md");
    const current = readFileSync(results, "utf8");
    const title = "## Targets of issue 20 (`bench/targets.ts`)";
    appendFileSync(
      results,
      `${current.includes(title) ? "" : `\n${title}\n\nEach run appends a section.\n`}\n${text}`,
    );
    // the table's columns padded as the linter wants them (CI checks markdown too)
    execFileSync(join(here, "../../../node_modules/.bin/biome"), ["format", "--write", results], {
      stdio: "ignore",
    });
  }
}

if (values.library) process.stdout.write(JSON.stringify(libraryTimes(values.library)));
else await main();
