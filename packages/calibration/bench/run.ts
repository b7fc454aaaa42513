// Benchmark: time per operation at N = 10k, 100k, 1M (K = 2 and 10), and the ratio against scikit-learn / scipy /
// numpy doing the same thing on the same data in the same run, when /usr/bin/python3 has scikit-learn.
//
//   node --import tsx bench/run.ts [--quick] [--only <operation text>] [--gc] [--node-flags "<flags>"]
//   (from packages/calibration; --quick stops at 100k, --only times the operations whose name contains the text and
//   skips the memory figures unless the text picks the full report, e.g. --only temperature; --gc runs a full garbage
//   collection before every timed call of ours, untimed, as a server's other work does between requests; --node-flags
//   passes flags to our timing child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" or "--trace-deopt --trace-opt",
//   whose output lines other than timings are copied to stderr)
//
// The library is compiled with tsc and timed by plain node in a child process (tsx's loader slows Math.exp and
// Math.log several-fold in the whole process). Both sides are timing servers fed the same requests alternately,
// so a busy machine slows both alike; each figure is the median over rounds of the median over repetitions, wall
// time (ratios) and CPU time (shown in brackets, less sensitive to other processes).
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { compileLibrary, PKG, transpileBench } from "./compile.js";
import { binaryData, multiclassData } from "./data.js";

recordResults(import.meta.url, "calibration library against scikit-learn");

const HERE = dirname(fileURLToPath(import.meta.url));
const PYTHON = "/usr/bin/python3";
const quick = process.argv.includes("--quick");
const option = (name: string): string | null =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : null;
const only = option("--only");
const gcBetween = process.argv.includes("--gc");
const nodeFlags = (option("--node-flags") ?? "").split(" ").filter((f) => f !== "");
const SIZES = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
const BINARY_OPS = [
  "isotonic fit",
  "platt fit",
  "reliability, equal-width",
  "reliability, equal-mass",
  "brier",
  "log loss",
];
const MULTI_OPS = ["temperature fit", "full report (1000 resamples)"];
const PY_REPORT_MAX = 100_000; // numpy needs minutes for the 1M report

class Server {
  private readonly lines: AsyncIterator<string>;
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    child.stderr.on("data", (d) => process.stderr.write(d));
  }
  async time(req: object): Promise<{ ms: number; cpuMs: number }> {
    this.child.stdin.write(`${JSON.stringify(req)}\n`);
    for (;;) {
      const next = await this.lines.next();
      if (next.done) throw new Error("timing server exited");
      if (next.value.startsWith('{"ms":')) return JSON.parse(next.value) as { ms: number; cpuMs: number };
      process.stderr.write(`${next.value}\n`); // V8 traces asked for with --node-flags
    }
  }
  close(): void {
    this.child.stdin.end();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Compiles the library and the bench helpers to plain ES modules under dir. */
function compile(dir: string): void {
  compileLibrary(join(PKG, "src"), dir);
  transpileBench(["js-server.ts", "memory.ts", "data.ts"], dir);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "calibration-bench-"));
  try {
    compile(dir);
    const js = new Server(
      spawn(process.execPath, [
        ...(gcBetween ? ["--expose-gc"] : []),
        ...nodeFlags,
        join(dir, "bench", "js-server.js"),
      ]),
    );
    const probe = spawnSync(PYTHON, ["-c", "import sklearn, scipy, numpy; print(sklearn.__version__)"], {
      encoding: "utf8",
    });
    const py = probe.status === 0 ? new Server(spawn(PYTHON, [join(HERE, "sklearn_server.py")])) : null;
    const rows: {
      op: string;
      n: number;
      k: number;
      ours: number;
      oursCpu: number;
      theirs: number | null;
      theirsCpu: number | null;
    }[] = [];
    for (const n of SIZES) {
      const reps = n <= 10_000 ? 15 : n <= 100_000 ? 5 : 3;
      const b = binaryData(n, 1);
      const p = join(dir, `p-${n}.f64`);
      const y = join(dir, `y-${n}.u8`);
      writeFileSync(p, new Uint8Array(b.p.buffer));
      writeFileSync(y, b.y);
      const cases: { k: number; ops: string[]; files: object }[] = [
        { k: 1, ops: BINARY_OPS, files: { p, y } },
      ];
      for (const k of [2, 10]) {
        const d = multiclassData(n, k, 2);
        const probs = join(dir, `probs-${n}-${k}.f64`);
        const gold = join(dir, `gold-${n}-${k}.i32`);
        writeFileSync(probs, new Uint8Array(d.probs.buffer));
        writeFileSync(gold, new Uint8Array(d.gold.buffer));
        cases.push({ k, ops: MULTI_OPS, files: { probs, gold } });
      }
      for (const c of cases) {
        for (const op of c.ops) {
          if (only && !op.includes(only)) continue;
          const isReport = op.startsWith("full report");
          const req = { op, n, k: c.k, reps: isReport ? (n <= 10_000 ? 3 : 1) : reps, ...c.files };
          const withPy = py && !(isReport && n > PY_REPORT_MAX);
          const rounds = isReport ? 1 : 3;
          const ours: { ms: number; cpuMs: number }[] = [];
          const theirs: { ms: number; cpuMs: number }[] = [];
          for (let r = 0; r < rounds; r++) {
            ours.push(await js.time({ ...req, gc: gcBetween }));
            if (withPy) theirs.push(await py.time({ ...req, reps: isReport ? 1 : req.reps }));
          }
          rows.push({
            op,
            n,
            k: c.k,
            ours: median(ours.map((x) => x.ms)),
            oursCpu: median(ours.map((x) => x.cpuMs)),
            theirs: withPy ? median(theirs.map((x) => x.ms)) : null,
            theirsCpu: withPy ? median(theirs.map((x) => x.cpuMs)) : null,
          });
          process.stderr.write(".");
        }
      }
    }
    process.stderr.write("\n");
    js.close();
    py?.close();

    const fmt = (x: number | null, w: number) =>
      (x === null ? "-" : x < 10 ? x.toFixed(2) : x.toFixed(1)).padStart(w);
    console.log(
      `${"operation".padEnd(30)} ${"N".padEnd(9)} ${"K".padEnd(3)} ${"ours ms".padStart(9)} ${"(cpu)".padStart(8)} ${"python ms".padStart(10)} ${"(cpu)".padStart(8)} ${"ratio".padStart(7)}`,
    );
    for (const r of rows) {
      const ratio = r.theirs === null ? "-" : (r.ours / r.theirs).toFixed(3);
      console.log(
        `${r.op.padEnd(30)} ${String(r.n).padEnd(9)} ${(r.k === 1 ? "-" : String(r.k)).padEnd(3)} ${fmt(r.ours, 9)} ${fmt(r.oursCpu, 8)} ${fmt(r.theirs, 10)} ${fmt(r.theirsCpu, 8)} ${ratio.padStart(7)}`,
      );
    }
    console.log(
      py
        ? `python: scikit-learn ${probe.stdout.trim()} (isotonic, LogisticRegression, calibration_curve, brier_score_loss, log_loss), scipy minimize_scalar (temperature), numpy (report); ratio = ours / python, below 1 is faster`
        : `${PYTHON} with scikit-learn not found: ratios skipped`,
    );
    const t = rows.find((r) => r.n === 100_000 && r.k === 10 && r.op === "temperature fit");
    const rep = rows.find((r) => r.n === 100_000 && r.k === 10 && r.op.startsWith("full report"));
    if (t)
      console.log(
        `target: temperature fit on 100k x 10 under 50 ms -> ${t.ours.toFixed(1)} ms (cpu ${t.oursCpu.toFixed(1)} ms)`,
      );
    if (rep)
      console.log(
        `target: full report on 100k x 10 under 1 s -> ${rep.ours.toFixed(0)} ms (cpu ${rep.oursCpu.toFixed(0)} ms)`,
      );
    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    console.log(`machine: ${cpus().length} cores, load average ${load} at the end of the run`);

    if (only && !"full report (1000 resamples)".includes(only)) return;
    console.log(
      "\nmemory: peak resident memory a full report adds on top of its input (one child process per size)",
    );
    for (const n of SIZES) {
      const m = spawnSync(process.execPath, [join(dir, "bench", "memory.js"), String(n), "10"], {
        encoding: "utf8",
      });
      if (m.status !== 0) {
        console.log(`  N = ${n}: failed ${m.stderr.slice(-300)}`);
        continue;
      }
      const r = JSON.parse(m.stdout) as { extraPeak: number; inputBytes: number };
      console.log(
        `  N = ${String(n).padEnd(8)} K = 10: +${(r.extraPeak / 2 ** 20).toFixed(1)} MiB = ${(r.extraPeak / n).toFixed(0)} bytes per item (input ${(r.inputBytes / 2 ** 20).toFixed(1)} MiB)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
