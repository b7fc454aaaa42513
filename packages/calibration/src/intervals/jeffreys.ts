import { checkLevel } from "../input.js";
import { betaQuantile } from "../special.js";
import { checkCounts } from "./counts.js";

/** Jeffreys interval: Beta(x + 1/2, n - x + 1/2) quantiles, ends pinned at 0 and 1 [Brown, Cai & DasGupta 2001]. */
export function jeffreysInterval(successes: number, n: number, level = 0.95): [number, number] {
  checkCounts(successes, n, "jeffreysInterval");
  checkLevel(level, "jeffreysInterval");
  if (n === 0) return [0, 1];
  const alpha = 1 - level;
  const a = successes + 0.5;
  const b = n - successes + 0.5;
  const lo = successes === 0 ? 0 : betaQuantile(alpha / 2, a, b);
  const hi = successes === n ? 1 : betaQuantile(1 - alpha / 2, a, b);
  return [lo, hi];
}
