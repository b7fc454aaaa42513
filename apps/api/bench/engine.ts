/**
 * Engine benchmark: a 10,000-example run against the reference server (a child process), examples per second
 * of the workbench (the built API as a child process: engine, SQLite, one transaction per example) against a
 * plain concurrent scorer loop over the same examples at the same concurrency, alternating rounds; and the
 * API's peak resident memory. Run from apps/api after `pnpm build`: node --import tsx bench/engine.ts
 * Options: --examples 10000 --concurrency 32 --rounds 2 [--profile DIR] (a CPU profile of the API into DIR)
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Item } from "@decision-workbench/datasets";
import { decisionDecider } from "@decision-workbench/scorer";
import { maxUnstored, UnstoredAnswers } from "../dist/engine/job.js";
import { exampleResult } from "../dist/engine/record.js";
import type { Selected } from "../dist/engine/selection.js";
import { openStorage } from "../dist/storage/sqlite.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { jsonl, storedRun, syntheticExamples, syntheticTask } from "../test/fixtures.js";
import { readEvents } from "../test/sse.js";
import { resetPeak, rssMb } from "./proc-memory.js";

const { values } = parseArgs({
  options: {
    examples: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "32" },
    rounds: { type: "string", default: "2" },
    profile: { type: "string" },
  },
});
const N = Number(values.examples);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const here = dirname(fileURLToPath(import.meta.url));

function start(
  cmd: string[],
  env: Record<string, string> = {},
): Promise<{ proc: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, cmd, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout?.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1] });
    });
    proc.on("exit", (code) => reject(new Error(`${cmd.join(" ")} exited with ${code}`)));
  });
}

async function postJson<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** CPU milliseconds (user + system) a process has used so far. */
function cpuMs(pid: number, tid?: number): number {
  const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const fields = readFileSync(file, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
}

/** CPU milliseconds of each thread of a process, by thread id. */
function threadCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) out.set(Number(tid), cpuMs(pid, Number(tid)));
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "wb-bench-"));
  const ref = await start([join(here, "../../decision-server/dist/cli.js"), "--port", "0"]);
  const prof = values.profile ? ["--cpu-prof", "--cpu-prof-dir", values.profile] : [];
  const api = await start(
    [
      ...prof,
      ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(" ") : []),
      join(here, "../dist/cli/main.js"),
      "serve",
      "--port",
      "0",
      "--no-reference",
      "--log-level",
      "warn",
    ],
    { WORKBENCH_DATA_DIR: dataDir },
  );
  try {
    const task = syntheticTask("bench");
    const examples = syntheticExamples(N);
    const server = await postJson<{ id: string }>(`${api.url}/api/servers`, {
      name: "reference",
      baseUrl: ref.url,
      models: ["lexical"],
      deterministic: true,
    });
    await postJson(`${api.url}/api/datasets`, { task, format: "jsonl", content: jsonl(examples) });
    const items = task.items as Parameters<ReturnType<typeof decisionDecider>["decideAll"]>[1];

    const baseline = async () => {
      // A fresh decider each round: its cache must not answer for the server.
      const decider = decisionDecider(ref.url, "lexical");
      let next = 0;
      const c0 = process.cpuUsage();
      const r0 = cpuMs(ref.proc.pid as number);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < examples.length) {
            const e = examples[next++];
            await decider.decideAll(e.state as string, items);
          }
        }),
      );
      const rate = examples.length / ((performance.now() - t0) / 1000);
      const c = process.cpuUsage(c0);
      cpu.baseline.push((c.user + c.system) / 1000 / examples.length);
      cpu.reference.push((cpuMs(ref.proc.pid as number) - r0) / examples.length);
      return rate;
    };
    // The same loop, each answer stored as the workbench stores it (the built storage), without the API: how much
    // of the workbench's gap is the storing itself.
    const store = openStorage(join(dataDir, "loop-stored.sqlite"));
    const loopStored = async () => {
      const decider = decisionDecider(ref.url, "lexical");
      const runId = `run_loop_${cpu.stored.length}`;
      await store.insertRun(
        storedRun(runId, {
          dataset: "bench",
          splits: ["train", "calibration", "test"],
          concurrency: CONCURRENCY,
          total: N,
        }),
      );
      let next = 0;
      const unstored = new UnstoredAnswers(maxUnstored(CONCURRENCY));
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < examples.length) {
            const ordinal = next++;
            const sel = { ordinal, example: examples[ordinal] as unknown as Selected["example"] };
            const decisions = await decider.decideAll(sel.example.state as string, items);
            // as the engine does: the slot asks on while its answer is committed, within the same bound
            unstored.add(store.recordExample(exampleResult(runId, sel, task.items as Item[], decisions)));
            await unstored.room();
          }
        }),
      );
      await unstored.drained();
      const rate = examples.length / ((performance.now() - t0) / 1000);
      const c = process.cpuUsage(c0);
      cpu.stored.push((c.user + c.system) / 1000 / examples.length);
      return rate;
    };
    /** False once /proc refused to reset the API's peak RSS. */
    let peakReset = true;
    const cpu = {
      stored: [] as number[],
      baseline: [] as number[],
      workbench: [] as number[],
      reference: [] as number[],
      mainBusy: [] as number[],
      /** The API's peak RSS (VmHWM) when a run has ended, before its report is read (MB). */
      runPeak: [] as number[],
      /** The same once its report has been read. */
      reportPeak: [] as number[],
      main: [] as number[],
      busiestOther: [] as number[],
      restOthers: [] as number[],
    };

    const workbench = async (limit?: number) => {
      // each measured run's peak from its start (not the previous run's report read, nor the dataset's upload)
      if (!limit) peakReset &&= resetPeak(api.proc.pid as number);
      const c0 = cpuMs(api.proc.pid as number);
      const m0 = cpuMs(api.proc.pid as number, api.proc.pid as number);
      const t0s = threadCpuMs(api.proc.pid as number);
      const t0 = performance.now();
      const run = await postJson<RunSummary>(`${api.url}/api/runs`, {
        dataset: "bench",
        serverId: server.id,
        model: "lexical",
        splits: ["train", "calibration", "test"],
        concurrency: CONCURRENCY,
        ...(limit ? { limit } : {}),
      });
      const { events } = await readEvents(`${api.url}/api/runs/${run.id}/events`);
      const seconds = (performance.now() - t0) / 1000;
      const done = events[events.length - 1].data as RunSummary;
      if (limit) {
        await fetch(`${api.url}/api/runs/${run.id}/report.json`);
        return 0;
      }
      if (done.status !== "done" || done.progress.done !== N)
        throw new Error(`run ended ${done.status} at ${done.progress.done}`);
      if (done.progress.escalated) throw new Error(`${done.progress.escalated} decisions escalated`);
      cpu.workbench.push((cpuMs(api.proc.pid as number) - c0) / N);
      const pid = api.proc.pid as number;
      const others = [...threadCpuMs(pid)]
        .filter(([tid]) => tid !== pid)
        .map(([tid, ms]) => (ms - (t0s.get(tid) ?? 0)) / N)
        .sort((a, b) => b - a);
      cpu.main.push((cpuMs(pid, pid) - m0) / N);
      cpu.busiestOther.push(others[0] ?? 0);
      cpu.restOthers.push(others.slice(1).reduce((a, b) => a + b, 0));
      cpu.mainBusy.push((cpuMs(api.proc.pid as number, api.proc.pid as number) - m0) / 1000 / seconds);
      cpu.runPeak.push(rssMb(pid));
      // The finished run's reports are read once, outside the measured part (as a user reads them after a run:
      // their memory counts in the peak RSS, their CPU not in the run's).
      await fetch(`${api.url}/api/runs/${run.id}/report.json`);
      cpu.reportPeak.push(rssMb(pid));
      return N / seconds;
    };

    // The API loads the bundled datasets in the background after it starts: let that finish first.
    await fetch(`${api.url}/api/datasets`);
    const idleRss = rssMb(api.proc.pid as number, "VmRSS");
    await baseline(); // warm-up: connections, JIT, the server's caches of question texts
    await workbench(300); // the same for the API (900 examples)
    await loopStored();
    // the dataset's upload (a thread of its own, in the API process) peaks higher than a run: its peak is told
    // apart, and the runs' peak is measured from here
    const uploadPeak = rssMb(api.proc.pid as number);
    const b: number[] = [];
    const w: number[] = [];
    const st: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      b.push(await baseline());
      w.push(await workbench());
      st.push(await loopStored());
      process.stderr.write(
        `round ${r + 1}: scorer loop ${b[r].toFixed(0)}/s, workbench ${w[r].toFixed(0)}/s, loop storing its answers ${st[r].toFixed(0)}/s, API RSS ${rssMb(api.proc.pid as number, "VmRSS").toFixed(0)} MB\n`,
      );
    }
    const ratio = median(w) / median(b);
    const paired = median(w.map((x, i) => x / b[i]));
    console.log(
      `examples ${N}, concurrency ${CONCURRENCY}, rounds ${ROUNDS} (medians); ${availableParallelism()} cores`,
    );
    console.log(`plain scorer loop: ${median(b).toFixed(0)} examples/s`);
    console.log(`workbench run:     ${median(w).toFixed(0)} examples/s (stored: ${N * 3} predictions a run)`);
    console.log(
      `ratio workbench / scorer loop: ${ratio.toFixed(2)} of the medians, ${paired.toFixed(2)} median of the rounds' ratios (target >= 0.8)`,
    );
    console.log(
      `scorer loop storing each answer (no API): ${median(st).toFixed(0)} examples/s, ${(median(st) / median(b)).toFixed(2)} of the plain loop, ${median(st.map((x, i) => x / b[i])).toFixed(2)} median of the rounds' ratios`,
    );
    console.log(`API main thread busy during a run: ${(100 * median(cpu.mainBusy)).toFixed(0)} %`);
    console.log(
      `CPU per example: scorer loop ${median(cpu.baseline).toFixed(2)} ms, loop storing ${median(cpu.stored).toFixed(2)} ms (both threads), workbench API ${median(cpu.workbench).toFixed(2)} ms, reference server ${median(cpu.reference).toFixed(2)} ms`,
    );
    console.log(
      `API CPU per example by thread: main ${median(cpu.main).toFixed(3)} ms, busiest other thread ${median(cpu.busiestOther).toFixed(3)} ms, all others (GC, compiler, checkpoints) ${median(cpu.restOthers).toFixed(3)} ms`,
    );
    console.log(
      `API peak RSS through the runs: ${Math.max(...cpu.runPeak).toFixed(0)} MB (target < 300 MB), ${Math.max(...cpu.reportPeak).toFixed(0)} MB with their reports read; ${idleRss.toFixed(0)} MB after the upload of the dataset, ${uploadPeak.toFixed(0)} MB peak through it and the warm-up runs${peakReset ? "" : " (the peak could not be reset: every figure includes the upload's)"}, ${rssMb(api.proc.pid as number, "VmRSS").toFixed(0)} MB after`,
    );
    await store.close();
  } finally {
    api.proc.kill("SIGTERM");
    ref.proc.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
