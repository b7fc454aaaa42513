// Child process of bench/versions.ts, run by plain node on two compiled copies of the library (another version, A,
// and this one, B). Paired mode: every operation called alternately A B B A per round, on two data sets taken in
// turn (same shape, different values), a full garbage collection before each call when asked; one JSON line per
// operation with each version's CPU time per call. First-call mode: one version, the operation's first call only.
import { binaryData, multiclassData } from "./data.js";

type Lib = typeof import("../src/index.js");
type Op = (lib: Lib, turn: number) => unknown;

/** The operations, each on data made once (two data sets, taken in turn). */
export function operations(): Record<string, () => Op> {
  const multi = (k: number) => [multiclassData(100_000, k, 11), multiclassData(100_000, k, 12)];
  const binary = () => [binaryData(100_000, 21), binaryData(100_000, 22)];
  return {
    "report 100k x 10 (200 resamples)": () => {
      const d = multi(10);
      return (L, t) => L.calibrationReport(d[t % 2], { resamples: 200 });
    },
    "full report 100k x 10 (1000 resamples)": () => {
      const d = multi(10);
      return (L, t) => L.calibrationReport(d[t % 2]);
    },
    "compare runs 100k x 10 (200 resamples)": () => {
      const d = multi(10);
      return (L, t) =>
        L.compareRuns(d[t % 2], { ...d[1 - (t % 2)], gold: d[t % 2].gold }, { resamples: 200 });
    },
    "classwise reliability 100k x 10": () => {
      const d = multi(10);
      return (L, t) => L.classwiseReliability(d[t % 2], { binning: "mass" });
    },
    "risk-coverage 100k x 10": () => {
      const d = multi(10);
      return (L, t) => L.riskCoverage(d[t % 2]);
    },
    "temperature fit 100k x 10": () => {
      const d = multi(10);
      return (L, t) => L.temperatureScaling().fit(d[t % 2]);
    },
    "vector fit 100k x 10": () => {
      const d = multi(10);
      return (L, t) => L.vectorScaling().fit(d[t % 2]);
    },
    "platt fit 100k": () => {
      const b = binary();
      return (L, t) => L.plattScaling().fit(b[t % 2]);
    },
    "beta fit 100k": () => {
      const b = binary();
      return (L, t) => L.betaCalibration().fit(b[t % 2]);
    },
    "isotonic fit 100k": () => {
      const b = binary();
      return (L, t) => L.isotonicCalibrator().fit(b[t % 2]);
    },
    "reliability, equal-mass 100k": () => {
      const b = binary();
      return (L, t) => L.calibrationCurve(b[t % 2], { bins: 15, binning: "mass" });
    },
    "brier 100k": () => {
      const b = binary();
      return (L, t) => L.binaryBrier(b[t % 2]);
    },
    "log loss 100k": () => {
      const b = binary();
      return (L, t) => L.binaryNll(b[t % 2]);
    },
  };
}

const gc = (globalThis as { gc?: () => void }).gc;

function cpuMs(fn: () => unknown): number {
  gc?.();
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  const ops = operations();
  if (mode === "first") {
    const [dist, name] = args;
    const lib = (await import(`${dist}/index.js`)) as Lib;
    const op = ops[name]();
    process.stdout.write(`${JSON.stringify({ op: name, cpu: cpuMs(() => op(lib, 0)) })}\n`);
    return;
  }
  const [distA, distB, roundsArg, only] = args;
  const rounds = Number(roundsArg);
  const libs = [(await import(`${distA}/index.js`)) as Lib, (await import(`${distB}/index.js`)) as Lib];
  for (const [name, make] of Object.entries(ops)) {
    if (only && !name.includes(only)) continue;
    const op = make();
    const cpu: [number[], number[]] = [[], []];
    for (let r = 0; r < rounds; r++) {
      for (const v of r % 2 === 0 ? [0, 1, 1, 0] : [1, 0, 0, 1])
        cpu[v].push(cpuMs(() => op(libs[v], cpu[v].length)));
    }
    process.stdout.write(`${JSON.stringify({ op: name, a: cpu[0], b: cpu[1] })}\n`);
  }
}

await main();
