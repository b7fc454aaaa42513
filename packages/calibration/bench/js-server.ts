// Timing server for bench/run.ts, run by plain node on the compiled library (not under tsx, whose loader slows
// Math.exp / Math.log several-fold). Same protocol as sklearn_server.py: one JSON request per line on stdin, one
// {"ms": median wall time, "cpuMs": median CPU time} line back.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import {
  binaryBrier,
  binaryNll,
  calibrationCurve,
  calibrationReport,
  isotonicCalibrator,
  plattScaling,
  temperatureScaling,
} from "../src/index.js";

interface Request {
  op: string;
  reps: number;
  n: number;
  k: number;
  p?: string;
  y?: string;
  probs?: string;
  gold?: string;
  /** A full garbage collection before every timed call (untimed); needs node --expose-gc. */
  gc?: boolean;
}

const cache = new Map<string, Uint8Array>();
function raw(path: string): Uint8Array {
  let b = cache.get(path);
  if (!b) {
    if (cache.size > 8) cache.clear();
    const buf = readFileSync(path);
    b = new Uint8Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    cache.set(path, b);
  }
  return b;
}

function operation(req: Request): () => unknown {
  if (req.k === 1) {
    const b = { p: new Float64Array(raw(req.p!).buffer), y: raw(req.y!) };
    const ops: Record<string, () => unknown> = {
      "isotonic fit": () => isotonicCalibrator().fit(b),
      "platt fit": () => plattScaling().fit(b),
      "reliability, equal-width": () => calibrationCurve(b, { bins: 15 }),
      "reliability, equal-mass": () => calibrationCurve(b, { bins: 15, binning: "mass" }),
      brier: () => binaryBrier(b),
      "log loss": () => binaryNll(b),
    };
    return ops[req.op];
  }
  const d = {
    probs: new Float64Array(raw(req.probs!).buffer),
    k: req.k,
    gold: new Int32Array(raw(req.gold!).buffer),
  };
  const ops: Record<string, () => unknown> = {
    "temperature fit": () => temperatureScaling().fit(d),
    "full report (1000 resamples)": () => calibrationReport(d),
  };
  return ops[req.op];
}

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const req = JSON.parse(line) as Request;
  const fn = operation(req);
  const gc = req.gc ? (globalThis as { gc?: () => void }).gc : undefined;
  if (req.gc && !gc) throw new Error("js-server: gc asked for, but node runs without --expose-gc");
  gc?.();
  fn();
  const times: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < req.reps; r++) {
    gc?.();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({ ms: times[times.length >> 1], cpuMs: cpu[cpu.length >> 1] })}\n`);
});
