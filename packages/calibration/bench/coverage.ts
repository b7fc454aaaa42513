// Coverage of the report's calibration-error intervals by simulation (test/coverage-sim.ts): for each true
// calibration level, 200 seeded reports of n = 1000 items (K = 4, 15 bins, 1000 resamples), the share of intervals
// that hold the population's value, their mean width, and the consistency test's rejection rate at 0.05.
//
//   node --import tsx bench/coverage.ts [--trials 200] [--n 1000]   (from packages/calibration)

import { recordResults } from "../../../scripts/bench-results.mjs";
import { SIMULATED, simulate } from "../test/coverage-sim.js";

recordResults(import.meta.url, "interval coverage");

const option = (name: string, fallback: string): string =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback;
const trials = Number(option("--trials", "200"));
const n = Number(option("--n", "1000"));

console.log(`coverage of 95 % intervals, n = ${n}, ${trials} trials per row (truth | coverage | mean width)`);
console.log(`${"T".padEnd(5)} ${SIMULATED.map((m) => m.padEnd(30)).join("")}consistency rejects`);
for (const t of [1, 0.88, 0.7]) {
  const s = simulate(t, trials, n);
  const cells = SIMULATED.map((m) =>
    `${s.truth[m].toFixed(3)} | ${(100 * s.coverage[m]).toFixed(1)} % | ${s.width[m].toFixed(3)}`.padEnd(30),
  );
  console.log(`${String(t).padEnd(5)} ${cells.join("")}${(100 * s.rejections).toFixed(1)} %`);
}
