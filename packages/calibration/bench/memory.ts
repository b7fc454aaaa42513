// Child process of bench/run.ts: peak resident memory a full report adds on top of its input, for one N x K.
import { readFileSync } from "node:fs";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { calibrationReport } from "../src/index.js";
import { multiclassData } from "./data.js";

recordResults(import.meta.url, "report memory");

function peakRss(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

const n = Number(process.argv[2]);
const k = Number(process.argv[3]);
calibrationReport(multiclassData(2000, k, 1), { resamples: 20 }); // warm up the code paths
const data = multiclassData(n, k, 7);
const before = peakRss();
calibrationReport(data, { resamples: 1000 });
const after = peakRss();
process.stdout.write(
  JSON.stringify({
    n,
    k,
    inputBytes: data.probs.byteLength + data.gold.byteLength,
    extraPeak: after - before,
  }),
);
