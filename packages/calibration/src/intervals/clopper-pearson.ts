import { checkLevel } from "../input.js";
import { betaQuantile } from "../special.js";
import { checkCounts } from "./counts.js";

/** Clopper-Pearson exact two-sided interval for a binomial proportion [Clopper & Pearson 1934]. */
export function clopperPearsonInterval(successes: number, n: number, level = 0.95): [number, number] {
  checkCounts(successes, n, "clopperPearsonInterval");
  checkLevel(level, "clopperPearsonInterval");
  if (n === 0) return [0, 1];
  const alpha = 1 - level;
  const lo = successes === 0 ? 0 : betaQuantile(alpha / 2, successes, n - successes + 1);
  const hi = successes === n ? 1 : betaQuantile(1 - alpha / 2, successes + 1, n - successes);
  return [lo, hi];
}

/** One-sided Clopper-Pearson upper bound: the risk is below it with probability `level` [Clopper & Pearson 1934]. */
export function clopperPearsonUpper(successes: number, n: number, level = 0.95): number {
  checkCounts(successes, n, "clopperPearsonUpper");
  checkLevel(level, "clopperPearsonUpper");
  if (n === 0 || successes === n) return 1;
  return betaQuantile(level, successes + 1, n - successes);
}
