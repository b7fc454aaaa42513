// Paired timing of this version of the library (B) against another git revision of it (A): both compiled with tsc
// and loaded in one plain node child, each operation called alternately A B B A per round on two data sets of the
// same shape taken in turn, so a busy machine slows both alike; CPU time per call (all of the process's threads, so
// compilation in the background counts). First calls are timed in fresh children, A and B alternately.
//
//   node --import tsx bench/versions.ts [--rev <git revision, default HEAD~1>] [--rounds 6] [--first 4] [--gc]
//     [--only <operation text>]
//   (from packages/calibration; --gc: a full garbage collection before every call, untimed, as a server's other work
//   causes between requests; --first 0 skips the first calls)
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { compileLibrary, PKG, transpileBench } from "./compile.js";

recordResults(import.meta.url, "CPU time against an older revision");

const option = (name: string, fallback: string): string =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback;
const rev = option("--rev", "HEAD~1");
const rounds = Number(option("--rounds", "6"));
const firsts = Number(option("--first", "4"));
const only = option("--only", "");
const gcBetween = process.argv.includes("--gc");
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), "calibration-versions-"));
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: PKG, encoding: "utf8" }).trim();
    const top = git("rev-parse", "--show-toplevel");
    const prefix = git("rev-parse", "--show-prefix");
    const oldSrc = join(dir, "a-src");
    mkdirSync(oldSrc);
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n'); // tsc (NodeNext) reads it for a-src's files
    const tar = execFileSync("git", ["archive", "--format=tar", `${rev}:${prefix}src`], { cwd: top });
    execFileSync("tar", ["-x", "-C", oldSrc], { input: tar });
    const a = join(dir, "a");
    const b = join(dir, "b");
    compileLibrary(oldSrc, a);
    compileLibrary(join(PKG, "src"), b);
    transpileBench(["versions-child.ts", "data.ts"], b);
    const child = join(b, "bench", "versions-child.js");
    const flags = gcBetween ? ["--expose-gc"] : [];
    console.log(
      `A = ${rev}, B = this working tree; ${cpus().length} cores, load average ${load()} at the start`,
    );
    const r = spawnSync(
      process.execPath,
      [...flags, child, "paired", join(a, "dist"), join(b, "dist"), String(rounds), only],
      { encoding: "utf8", maxBuffer: 64 * 2 ** 20 },
    );
    if (r.status !== 0) throw new Error(`versions child failed: ${r.stderr}`);
    console.log(
      `\n${"operation".padEnd(40)} ${"A cpu ms".padStart(9)} ${"B cpu ms".padStart(9)} ${"B / A".padStart(6)}   (median per call after two warm-up calls each${gcBetween ? ", GC before each call" : ""})`,
    );
    const reportOp = "report 100k x 10 (200 resamples)";
    for (const line of r.stdout.trim().split("\n")) {
      const { op, a: ca, b: cb } = JSON.parse(line) as { op: string; a: number[]; b: number[] };
      const ma = median(ca.slice(2));
      const mb = median(cb.slice(2));
      console.log(
        `${op.padEnd(40)} ${ma.toFixed(1).padStart(9)} ${mb.toFixed(1).padStart(9)} ${(mb / ma).toFixed(3).padStart(6)}`,
      );
    }
    if (firsts > 0 && (!only || reportOp.includes(only))) {
      const first: [number[], number[]] = [[], []];
      for (let i = 0; i < firsts; i++) {
        for (const v of i % 2 === 0 ? [0, 1] : [1, 0]) {
          const f = spawnSync(process.execPath, [child, "first", join(v === 0 ? a : b, "dist"), reportOp], {
            encoding: "utf8",
          });
          if (f.status !== 0) throw new Error(`first-call child failed: ${f.stderr}`);
          first[v].push((JSON.parse(f.stdout) as { cpu: number }).cpu);
        }
      }
      const [fa, fb] = first.map(median);
      console.log(
        `${`first ${reportOp}`.padEnd(40)} ${fa.toFixed(1).padStart(9)} ${fb.toFixed(1).padStart(9)} ${(fb / fa).toFixed(3).padStart(6)}   (median of ${firsts} fresh processes each)`,
      );
    }
    console.log(`\nload average ${load()} at the end`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
