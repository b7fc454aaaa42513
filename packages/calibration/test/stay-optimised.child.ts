// Child process of stay-optimised.test.ts, run with V8's tracing flags: the report, the views and the fits on data of
// the same shape but different values, a full garbage collection before each call (as a server's other traffic
// causes), and a marker line before each call so the parent can tell which call a trace line belongs to.
import {
  betaCalibration,
  calibrationReport,
  classViews,
  compareRuns,
  ece,
  plattScaling,
  topLabel,
  vectorScaling,
} from "../src/index.js";
import { synthetic } from "./synthetic.js";

const calls = Number(process.argv[2] ?? 8);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
for (let c = 0; c < calls; c++) {
  const d = synthetic({ n: 20000, k: 4, temperature: 1.5, seed: 100 + c });
  const e = synthetic({ n: 20000, k: 4, temperature: 0.8, seed: 200 + c });
  gc();
  console.log(`=== call ${c}`);
  calibrationReport(d, { resamples: 40, seed: c });
  compareRuns(d, { ...e, gold: d.gold }, { resamples: 20, seed: c });
  classViews(d);
  vectorScaling().fit(d);
  const top = topLabel(d);
  plattScaling().fit(top);
  betaCalibration().fit(top);
  ece(top, { binning: "mass" });
}
console.log("=== done");
