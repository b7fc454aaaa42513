/**
 * Run workers bench: the workbench on a shared PostgreSQL database (a throwaway cluster, test/postgres-cluster.ts),
 * the built API as a child process with no workers of its own (`workbench serve --database-url URL --workers 0`),
 * `workbench worker` child processes beside it (as on other machines) and the reference decision server in this
 * process (model lexical, no rate limit). Runs start through the HTTP API; the bench watches their rows in the
 * database.
 *
 *   1. scaling: the same run (--scale-examples, concurrency --concurrency) on 1, 2 and 4 worker processes, each
 *      count started fresh, --rounds times in alternating order; examples/s, the ratios 2/1 and 4/1 and each
 *      part's CPU per example (medians), measured in the same run of the bench; and what each chunk's start
 *      reads. Then the same against a second reference server that adds --delay ms to every request (a remote
 *      service's latency), on --delay-limit examples of each split.
 *   2. a large run (--big-examples, 1,000,000 by default) on --big-workers worker processes: its time and
 *      examples/s, every process's peak RSS (VmHWM) and its RSS at each 100,000 examples stored; the dataset is
 *      uploaded through POST /api/datasets (multipart) and the upload timed. After the run, this process reads
 *      what a worker reads at the start of each chunk (the run's selection and its stored example ids) and says
 *      how long that takes and how much memory it holds.
 *
 * Run from apps/api after `pnpm run build` (the API and the workers run from dist, under plain node):
 *   node --import tsx bench/workers.ts [--scale-examples 20000] [--concurrency 16] [--rounds 1]
 *     [--big-examples 1000000] [--big-workers 2] [--big-minutes 25] [--delay 50] [--delay-limit 2000]
 *     [--no-scale] [--no-big] [--no-summaries] [--no-append] [--label TEXT]
 * A large run still going after --big-minutes is cancelled and reported as far as it got. --no-summaries: no
 * GET /api/runs/:id during the runs (each reads the whole run, see summaryCost).
 */

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { type DecisionServerHandle, startDecisionServer } from "@decision-workbench/decision-server";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { analysisData } from "../dist/analysis/data.js";
import {
  datasetHashOf,
  examplesBetween,
  type Outline,
  outlineExamples,
  selectExamples,
} from "../dist/engine/selection.js";
import { openPostgresStorage } from "../dist/storage/postgres/postgres.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { syntheticTask, uploadBody } from "../test/fixtures.js";
import startCluster from "../test/postgres-cluster.js";
import { resetPeak, rssMb } from "./proc-memory.js";

const { values } = parseArgs({
  options: {
    "scale-examples": { type: "string", default: "20000" },
    concurrency: { type: "string", default: "16" },
    rounds: { type: "string", default: "1" },
    "big-examples": { type: "string", default: "1000000" },
    "big-workers": { type: "string", default: "2" },
    "big-minutes": { type: "string", default: "25" },
    delay: { type: "string", default: "50" },
    "delay-limit": { type: "string", default: "2000" },
    "no-scale": { type: "boolean" },
    "no-big": { type: "boolean" },
    "no-append": { type: "boolean" },
    "no-summaries": { type: "boolean" },
    label: { type: "string", default: "" },
  },
});
const SCALE_N = Number(values["scale-examples"]);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
/** Whether the watch times a GET /api/runs/:id at each 100,000 examples (its cost grows with the run). */
const SUMMARIES = !values["no-summaries"];
const BIG_N = Number(values["big-examples"]);
const BIG_WORKERS = Number(values["big-workers"]);
const BIG_MS = Number(values["big-minutes"]) * 60_000;
const DELAY = Number(values.delay);
const DELAY_LIMIT = Number(values["delay-limit"]);
const SPLITS = ["train", "calibration", "test"];
/** The secret key every process of the bench's team shares. */
const KEY = "be".repeat(32);
setFlagsFromString("--expose-gc");
/** A full garbage collection, so heap figures count what is held, not what is left to collect. */
const gc = runInNewContext("gc") as () => void;
const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "../dist/cli/main.js");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const fmt = (x: number, d = 0) =>
  x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stderr.write(`${line}\n`);

/** CPU ms (user + system) of a process; with `reaped`, its exited children's too (PostgreSQL's ended backends). */
function cpuMs(pid: number, reaped = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0)) * 10; // 10 ms ticks
  } catch {
    return 0; // ended since it was listed
  }
}

/** The cluster's PostgreSQL processes: its postmaster (`-p PORT` on its command line) and the backends it forked. */
function postgresPids(port: string): { postmaster: number; backends: number[] } {
  const procs = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  let postmaster = 0;
  for (const d of procs) {
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (cmd[0].endsWith("/postgres") && cmd.includes("-p") && cmd[cmd.indexOf("-p") + 1] === port)
        postmaster = Number(d);
    } catch {}
  }
  const backends = procs.map(Number).filter((pid) => {
    try {
      return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]) === postmaster;
    } catch {
      return false;
    }
  });
  return { postmaster, backends };
}

/** The machine's busy and total CPU ms so far (/proc/stat, every core). */
function machineMs(): { busy: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0) * 10;
  return { busy: total - (f[3] + f[4]) * 10, total };
}

/** CPU ms so far of each part: the workers, the API, PostgreSQL, this process (the reference server), the machine. */
function teamCpu(team: Team, workers: Child[]) {
  const pgp = postgresPids(team.pgPort);
  return {
    workers: workers.reduce((s, w) => s + cpuMs(w.pid), 0),
    api: cpuMs(team.api.pid),
    postgres: cpuMs(pgp.postmaster, true) + pgp.backends.reduce((s, p) => s + cpuMs(p), 0),
    reference: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    machine: machineMs(),
  };
}

/** A child process of the bench: the API or a worker, its stderr kept for the error messages. */
interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  stderr(): string;
  exited: Promise<unknown>;
}

const children = new Set<Child>();

/** Spawns the built `workbench ARGS`; resolves once its stdout matches `ready` (with the match). */
function spawnWorkbench(
  name: string,
  args: string[],
  ready: RegExp,
): Promise<{ child: Child; match: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "wb-bench-workers-"));
  const proc = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, WORKBENCH_DATA_DIR: dataDir, WORKBENCH_SECRET_KEY: KEY, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stderr?.setEncoding("utf8").on("data", (c: string) => {
    err = (err + c).slice(-20_000);
  });
  const exited = new Promise((resolve) =>
    proc.on("exit", (code, signal) => {
      rmSync(dataDir, { recursive: true, force: true });
      resolve(code ?? signal);
    }),
  );
  const child: Child = { name, proc, pid: proc.pid as number, stderr: () => err, exited };
  children.add(child);
  void exited.then(() => children.delete(child));
  return new Promise((resolve, reject) => {
    proc.stdout?.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const m = ready.exec(out);
      if (m) resolve({ child, match: m[1] ?? m[0] });
    });
    void exited.then((code) => reject(new Error(`${name} exited with ${code} before it was ready:\n${err}`)));
  });
}

/** Stops a child with SIGTERM (SIGKILL after 20 s) and waits for it. */
async function stop(child: Child): Promise<void> {
  child.proc.kill("SIGTERM");
  const killer = setTimeout(() => child.proc.kill("SIGKILL"), 20_000);
  await child.exited;
  clearTimeout(killer);
}

async function http<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

const postJson = <T>(url: string, body: unknown) =>
  http<T>(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/**
 * The large dataset's JSONL: the shape of test/fixtures.ts (its task, explicit splits, unique states) in shorter
 * lines (~140 bytes), since the fixture's ~230-byte lines would make 1,000,000 examples larger than the 160 MB
 * an upload may be.
 */
function compactJsonl(count: number): Blob {
  const teams = [
    ["billing", "charged twice, refund it", "refund"],
    ["shipping", "parcel late, no tracking", "delivery"],
    ["account", "login fails, reset password", "password"],
  ] as const;
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const [team, text, topic] = teams[i % 3];
    const urgent = i % 4 === 0 ? "yes" : i % 4 === 2 ? "not stated" : "no";
    parts.push(
      `{"id":"b${i}","state":"Ticket ${i}: ${text}${urgent === "yes" ? ", urgent" : ""}.","labels":{"team":"${team}","urgent":"${urgent}","topics":["${topic}"]},"split":"${SPLITS[i % 3]}"}\n`,
    );
  }
  return new Blob(parts, { type: "application/x-ndjson" });
}

/** The bench's team: the database, the API child, the reference server registered on it. */
interface Team {
  dbUrl: string;
  api: Child;
  apiUrl: string;
  serverId: string;
  /** The bench's own view of the database (it watches runs there). */
  storage: Awaited<ReturnType<typeof openPostgresStorage>>;
  /** The cluster's port, to find its processes. */
  pgPort: string;
}

/** Starts `n` worker processes at once. */
async function startWorkers(team: Team, n: number): Promise<Child[]> {
  const started = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      spawnWorkbench(
        `worker ${i + 1}`,
        ["worker", "--database-url", team.dbUrl, "--allow-private-servers"],
        /^worker ready$/m,
      ),
    ),
  );
  return started.map((s) => s.child);
}

/** What a run's watch saw: the final summary, its seconds, and what it sampled at every 100,000 examples stored. */
interface Watched {
  summary: RunSummary;
  seconds: number;
  /**
   * At each 100,000 examples stored: each watched process's RSS now and its peak so far (MB), and the time of one
   * GET /api/runs/:id (ms).
   */
  trend: { done: number; seconds: number; rss: number[]; peak: number[]; summaryMs: number }[];
  /** Each watched process's highest RSS sampled every 250 ms during the run (MB). */
  highest: number[];
}

/**
 * Starts a run over every split of `dataset` through the API and watches it until it ends: its row in the database
 * every 250 ms (not GET /api/runs/:id, whose cost grows with the examples stored: timed once at each 100,000
 * unless --no-summaries), the RSS of `watch` at each 100,000 examples stored; cancels it after `ms`.
 */
async function runAndWatch(
  team: Team,
  dataset: string,
  watch: Child[],
  ms: number,
  extra: Record<string, unknown> = {},
): Promise<Watched> {
  const t0 = performance.now();
  const run = await postJson<RunSummary>(`${team.apiUrl}/api/runs`, {
    dataset,
    serverId: team.serverId,
    model: "lexical",
    splits: SPLITS,
    concurrency: CONCURRENCY,
    ...extra,
  });
  const summaryOf = () => http<RunSummary>(`${team.apiUrl}/api/runs/${run.id}`);
  const trend: Watched["trend"] = [];
  const highest = watch.map(() => 0);
  let cancelled = false;
  for (;;) {
    watch.forEach((c, i) => {
      highest[i] = Math.max(highest[i], rssMb(c.pid, "VmRSS"));
    });
    const s = await team.storage.getStoredRun(run.id);
    if (!s) throw new Error(`run ${run.id} is gone from the database`);
    const seconds = (performance.now() - t0) / 1000;
    const step = Math.floor(s.counters.done / 100_000) * 100_000;
    if (step > (trend.at(-1)?.done ?? 0)) {
      const rss = watch.map((c) => rssMb(c.pid, "VmRSS"));
      const peak = watch.map((c) => rssMb(c.pid));
      const t1 = performance.now();
      if (SUMMARIES) await summaryOf();
      const summaryMs = SUMMARIES ? performance.now() - t1 : Number.NaN;
      trend.push({ done: step, seconds, rss, peak, summaryMs });
      say(
        `  ${fmt(step)} done at ${fmt(seconds)} s; RSS ${rss.map((r, i) => `${fmt(r)} (${fmt(peak[i])})`).join(" / ")} MB; GET /api/runs/:id ${SUMMARIES ? `${fmt(summaryMs)} ms` : "not read"}`,
      );
    }
    if (s.status !== "running" && s.status !== "queued")
      return { summary: await summaryOf(), seconds, trend, highest };
    if (!cancelled && seconds * 1000 > ms) {
      cancelled = true;
      say(`  cancelling the run after ${fmt(seconds)} s at ${fmt(s.counters.done)} examples`);
      await http(`${team.apiUrl}/api/runs/${run.id}/cancel`, {
        method: "POST",
        headers: { "x-workbench": "1" },
      });
    }
    for (const c of watch)
      if (c.proc.exitCode !== null || c.proc.signalCode !== null)
        throw new Error(`${c.name} died during the run:\n${c.stderr()}`);
    await sleep(250);
  }
}

/** One scaling pass: the server the runs ask, its delay, and the examples of each run (a per-split limit or all). */
interface Pass {
  serverId: string;
  delay: number;
  limit?: number;
}

/** The same run on 1, 2 and 4 fresh worker processes; examples/s, ratios and CPU per example. */
async function scaling(team: Team, pass: Pass): Promise<{ lines: string[]; lastRun: string }> {
  const examples = pass.limit ? Math.min(SCALE_N, pass.limit * SPLITS.length) : SCALE_N;
  const counts = [1, 2, 4];
  const rates = new Map<number, number[]>(counts.map((n) => [n, []]));
  const cpu = new Map<number, Record<"workers" | "api" | "postgres" | "reference" | "busy", number>[]>(
    counts.map((n) => [n, []]),
  );
  let lastRun = "";
  for (let round = 0; round < ROUNDS; round++) {
    // the order alternates (1, 2, 4, then 4, 2, 1), so a drift of the machine's load weighs on every count alike
    for (const n of round % 2 ? [...counts].reverse() : counts) {
      const workers = await startWorkers(team, n);
      try {
        // warm-up: 1,500 examples (500 of each split), so each count's processes compile before they are timed
        await runAndWatch(team, "scale", [], 120_000, { limit: 500, serverId: pass.serverId });
        const c0 = teamCpu(team, workers);
        const r = await runAndWatch(team, "scale", workers, 600_000, {
          serverId: pass.serverId,
          ...(pass.limit ? { limit: pass.limit } : {}),
        });
        const c1 = teamCpu(team, workers);
        if (r.summary.status !== "done" || r.summary.progress.done !== examples)
          throw new Error(`the ${n}-worker run ended ${r.summary.status} at ${r.summary.progress.done}`);
        lastRun = r.summary.id;
        rates.get(n)?.push(examples / r.seconds);
        const per = (k: "workers" | "api" | "postgres" | "reference") => (c1[k] - c0[k]) / examples;
        const c = {
          workers: per("workers"),
          api: per("api"),
          postgres: per("postgres"),
          reference: per("reference"),
          busy: (c1.machine.busy - c0.machine.busy) / (c1.machine.total - c0.machine.total),
        };
        cpu.get(n)?.push(c);
        say(
          `round ${round + 1}, delay ${pass.delay} ms, ${n} worker process(es): ${fmt(examples / r.seconds)} examples/s (${fmt(r.seconds, 1)} s); workers ${fmt(c.workers, 2)} ms CPU per example, machine busy ${fmt(100 * c.busy)} %`,
        );
      } finally {
        await Promise.all(workers.map(stop));
      }
    }
  }
  const rate = (n: number) => median(rates.get(n) ?? []);
  const part = (n: number, k: "workers" | "api" | "postgres" | "reference" | "busy") =>
    median((cpu.get(n) ?? []).map((c) => c[k]));
  const roundRatio = (n: number) => median((rates.get(n) ?? []).map((x, i) => x / (rates.get(1) ?? [])[i]));
  const lines = [
    `scaling: ${fmt(examples)} examples (of a ${fmt(SCALE_N)}-example dataset), concurrency ${CONCURRENCY}, reference server delay ${pass.delay} ms; ${availableParallelism()} cores; medians of ${ROUNDS} round(s)`,
    ...counts.map(
      (n) =>
        `  ${n} worker process(es): ${fmt(rate(n))} examples/s (${(rates.get(n) ?? []).map((x) => fmt(x)).join(", ")}); CPU ms per example: workers ${fmt(part(n, "workers"), 2)}, API ${fmt(part(n, "api"), 2)}, PostgreSQL ${fmt(part(n, "postgres"), 2)}, reference server and bench ${fmt(part(n, "reference"), 2)}; machine busy ${fmt(100 * part(n, "busy"))} %`,
    ),
    `  ratio 2 workers / 1: ${fmt(rate(2) / rate(1), 2)}, 4 workers / 1: ${fmt(rate(4) / rate(1), 2)} (of the medians); ${fmt(roundRatio(2), 2)} and ${fmt(roundRatio(4), 2)} (medians of the rounds' ratios)`,
  ];
  return { lines, lastRun };
}

/**
 * What a worker reads at the start of each chunk (run-worker.ts `process`), timed here on a finished run with the
 * heap each read holds after a collection (each read once untimed before, as a worker's later chunks find the code
 * compiled and the rows in PostgreSQL's cache): today, the run's outline (every example's place and split as
 * integer arrays), the chunk's own examples and its stored ordinals (commit 9ca5da9); before it, the run's whole
 * selection (every example's text) and every stored example id of the run.
 */
async function chunkStart(team: Team, dataset: string, runId: string): Promise<string> {
  const storage = team.storage;
  // the untimed read in a call of its own: a value awaited in `measure` would stay held in its frame
  const warm = async (read: () => Promise<unknown>) => {
    await read();
  };
  const measure = async <T>(read: () => Promise<T>): Promise<{ out: T; ms: number; mb: number }> => {
    await warm(read);
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const out = await read();
    const ms = performance.now() - t0;
    gc();
    return { out, ms, mb: (process.memoryUsage().heapUsed - heap0) / 1e6 };
  };
  const outline = await measure(() => outlineExamples(storage, dataset, SPLITS as never, null));
  const n = outline.out?.total ?? 0;
  const size = Math.min(10_000, Math.max(100, Math.ceil(n / 64)));
  const chunks = Math.ceil(n / size);
  const [from, to] = [Math.floor(chunks / 2) * size, Math.min(n, (Math.floor(chunks / 2) + 1) * size)];
  const own = await measure(() => examplesBetween(storage, dataset, outline.out as Outline, from, to));
  const ordinals = await measure(() => storage.storedOrdinals(runId, from, to));
  const hash = await measure(() => datasetHashOf(storage, dataset));
  const selection = await measure(() => selectExamples(storage, dataset, SPLITS as never, null));
  const now = hash.ms + own.ms + ordinals.ms;
  const before = selection.ms;
  const ca6b7d9 = outline.ms + own.ms + ordinals.ms;
  return [
    `each chunk's start (${chunks} chunks of ${fmt(size)} in a run of ${fmt(n)}), now: the dataset's hash in ${fmt(hash.ms, 1)} ms (the run's outline, ${fmt(outline.ms)} ms and ${fmt(outline.mb, 1)} MB of heap held, is read once a run by each worker), the chunk's ${fmt(own.out.length)} examples in ${fmt(own.ms)} ms (${fmt(own.mb, 1)} MB), its ${fmt(ordinals.out.length)} stored ordinals in ${fmt(ordinals.ms)} ms: ${fmt(now)} ms a chunk, ${fmt((now * chunks) / n, 3)} ms per example of the run`,
    `  before ca6b7d9 (the outline read at every chunk): ${fmt(ca6b7d9)} ms a chunk, ${fmt((ca6b7d9 * chunks) / n, 3)} ms per example of the run`,
    `  before 9ca5da9: the whole selection in ${fmt(selection.ms)} ms (${fmt(selection.mb)} MB of heap held), then every stored example id (a read that no longer exists, not timed): ${fmt(before)} ms a chunk and more, ${fmt((before * chunks) / n, 3)} ms per example of the run`,
  ].join("\n");
}

/**
 * What GET /api/runs/:id reads for a run not finished (engine.ts summarize: progress, served models, headline),
 * each part timed here on a run's stored rows: every stored request time (for the latency percentiles), the
 * distinct models that served it, and the headline over every stored prediction.
 */
async function summaryCost(team: Team, runId: string): Promise<string> {
  const time = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
    const t0 = performance.now();
    const out = await f();
    return [out, performance.now() - t0];
  };
  const [ms, latMs] = await time(() => team.storage.latencies(runId));
  const [, servedMs] = await time(() => team.storage.servedModels(runId));
  const [, headMs] = await time(() => analysisData(team.storage).headline(runId));
  return `GET /api/runs/:id of a running run reads the whole run: its ${fmt(ms.length)} request times in ${fmt(latMs)} ms, its served models in ${fmt(servedMs)} ms, its headline over every stored prediction in ${fmt(headMs)} ms (timed here on the finished run)`;
}

/** The large run on BIG_WORKERS worker processes, and what a worker reads for each chunk of it. */
async function large(team: Team): Promise<string[]> {
  const lines: string[] = [];
  const file = compactJsonl(BIG_N);
  const form = new FormData();
  form.append("task", JSON.stringify(syntheticTask("big")));
  form.append("format", "jsonl");
  form.append("file", file, "big.jsonl");
  const apiBefore = rssMb(team.api.pid, "VmRSS");
  const t0 = performance.now();
  await http(`${team.apiUrl}/api/datasets`, { method: "POST", headers: { "x-workbench": "1" }, body: form });
  const uploadS = (performance.now() - t0) / 1000;
  lines.push(
    `upload of ${fmt(BIG_N)} examples (${fmt(file.size / 1e6, 1)} MB of JSONL, multipart) through POST /api/datasets: ${fmt(uploadS, 1)} s; API RSS ${fmt(apiBefore)} MB before it, peak ${fmt(rssMb(team.api.pid))} MB after it`,
  );
  say(lines[0]);
  // the API's peak of the run, not of the upload: once the upload thread's memory is given back (at most 60 s)
  const settle0 = performance.now();
  while (rssMb(team.api.pid, "VmRSS") > apiBefore + 100 && performance.now() - settle0 < 60_000)
    await sleep(250);
  lines.push(
    `  the API's RSS back to ${fmt(rssMb(team.api.pid, "VmRSS"))} MB ${fmt((performance.now() - settle0) / 1000, 1)} s after the upload`,
  );
  say(lines[1]);
  const reset = resetPeak(team.api.pid);
  const workers = await startWorkers(team, BIG_WORKERS);
  const ready = workers.map((w) => rssMb(w.pid, "VmRSS"));
  let r: Watched;
  const peaks: number[] = [];
  let cpuLine = "";
  try {
    const c0 = teamCpu(team, workers);
    r = await runAndWatch(team, "big", [team.api, ...workers], BIG_MS);
    const c1 = teamCpu(team, workers);
    const n = r.summary.progress.done || 1;
    const per = (k: "workers" | "api" | "postgres" | "reference") => fmt((c1[k] - c0[k]) / n, 2);
    const busy = (c1.machine.busy - c0.machine.busy) / (c1.machine.total - c0.machine.total);
    cpuLine = `  CPU ms per example: workers ${per("workers")}, API ${per("api")}, PostgreSQL ${per("postgres")}, reference server and bench ${per("reference")}; machine busy ${fmt(100 * busy)} %`;
    peaks.push(...[team.api, ...workers].map((c) => rssMb(c.pid)));
  } finally {
    await Promise.all(workers.map(stop));
  }
  const done = r.summary.progress.done;
  lines.push(
    `large run: ${fmt(BIG_N)} examples on ${BIG_WORKERS} worker processes, concurrency ${CONCURRENCY}, reference server delay 0 ms: ${r.summary.status}, ${fmt(done)} stored in ${fmt(r.seconds, 1)} s, ${fmt(done / r.seconds)} examples/s`,
    `  peak RSS (VmHWM): API ${fmt(peaks[0])} MB${reset ? " (its peak reset after the upload)" : " (the upload's included)"}, ${peaks
      .slice(1)
      .map((p, i) => `worker ${i + 1} ${fmt(p)} MB`)
      .join(", ")} (target < 300 MB each); workers ${ready.map((x) => fmt(x)).join(" / ")} MB when ready`,
    `  highest RSS sampled every 250 ms during the run: API ${fmt(r.highest[0])} MB, workers ${r.highest
      .slice(1)
      .map((x) => fmt(x))
      .join(" / ")} MB (the API's just after the upload is the upload's: its RSS falls back after it)`,
    cpuLine,
    "  at each 100,000 examples stored: RSS now (peak so far), API / workers, MB; one GET /api/runs/:id, ms:",
    ...r.trend.map(
      (t) =>
        `    ${fmt(t.done).padStart(9)} at ${fmt(t.seconds).padStart(5)} s: ${t.rss.map((x, i) => `${fmt(x)} (${fmt(t.peak[i])})`).join(" / ")}; ${SUMMARIES ? `${fmt(t.summaryMs)} ms` : "not read"}`,
    ),
  );

  lines.push(
    `  ${await chunkStart(team, "big", r.summary.id)}`,
    `  ${await summaryCost(team, r.summary.id)}`,
  );
  return lines;
}

/** Creates the bench's database on the cluster's server; returns its URL. */
async function createDatabase(serverUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query("CREATE DATABASE wb_bench_workers");
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = "/wb_bench_workers";
  return url.toString();
}

async function main(): Promise<void> {
  const loadStart = loadavg()[0];
  // the test cluster's global setup, given a stand-in for vitest's project: it starts the cluster and hands its URL
  const provided: Record<string, string> = {};
  const stopCluster = await startCluster({
    provide: (key: string, value: string) => {
      provided[key] = value;
    },
  } as unknown as TestProject);
  const out: string[] = [];
  const onSignal = () => {
    for (const c of children) c.proc.kill("SIGKILL");
    stopCluster();
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const refs: DecisionServerHandle[] = [];
  let storage: Team["storage"] | undefined;
  try {
    if (!provided.postgresUrl) throw new Error(provided.postgresError);
    const dbUrl = await createDatabase(provided.postgresUrl);
    const { child: api, match: apiUrl } = await spawnWorkbench(
      "the API",
      [
        "serve",
        "--database-url",
        dbUrl,
        "--workers",
        "0",
        "--port",
        "0",
        "--no-reference",
        "--log-level",
        "warn",
      ],
      /listening on (\S+)/,
    );
    /** A reference server in this process (D ms added to every request when D > 0), registered on the API. */
    const reference = async (delay: number) => {
      const ref = await startDecisionServer({
        port: 0,
        checkpoints: false,
        record: false,
        ...(delay > 0
          ? { faults: { rules: [{ rate: 1, fault: { kind: "delay" as const, ms: delay } }] } }
          : {}),
      });
      refs.push(ref);
      const server = await postJson<{ id: string }>(`${apiUrl}/api/servers`, {
        name: `reference, delay ${delay} ms`,
        baseUrl: ref.url,
        models: ["lexical"],
        deterministic: true,
      });
      return server.id;
    };
    const serverId = await reference(0);
    storage = await openPostgresStorage(dbUrl);
    const team: Team = { dbUrl, api, apiUrl, serverId, storage, pgPort: new URL(dbUrl).port };
    say(
      `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model}), load ${fmt(loadStart, 1)}`,
    );
    if (!values["no-scale"]) {
      await postJson(`${apiUrl}/api/datasets`, uploadBody(SCALE_N, "scale"));
      const plain = await scaling(team, { serverId, delay: 0 });
      out.push(...plain.lines, `  ${await chunkStart(team, "scale", plain.lastRun)}`);
      if (DELAY > 0) {
        const slow = await reference(DELAY);
        out.push(...(await scaling(team, { serverId: slow, delay: DELAY, limit: DELAY_LIMIT })).lines);
      }
    }
    if (!values["no-big"]) out.push(...(await large(team)));
    await stop(api);
  } finally {
    await Promise.all([...children].map(stop));
    await Promise.all(refs.map((r) => r.close()));
    await storage?.close();
    stopCluster();
  }
  const text = out.join("\n");
  console.log(text);
  if (values["no-append"]) return;
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
    encoding: "utf8",
    cwd: here,
  }).trim();
  const stamp = new Date().toISOString().slice(0, 16).replace("T", " ");
  appendFileSync(
    join(here, "RESULTS.md"),
    `\n### ${stamp} UTC, commit ${commit}, bench/workers.ts${values.label ? `, ${values.label}` : ""}\n\n` +
      `Node ${process.version}, ${availableParallelism()} cores, load average ${fmt(loadStart, 1)} at the start and ${fmt(loadavg()[0], 1)} at the end.\n\n` +
      `\`\`\`text\n${text}\n\`\`\`\n`,
  );
}

await main();
