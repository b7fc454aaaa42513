/** The run shapes live in src/shapes/runs.ts; the tests and benches still import these three from here. */
export type { Progress, ReplayResult, RunSummary } from "../shapes/runs.js";
