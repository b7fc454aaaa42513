import { checkLevel } from "../input.js";
import { normalQuantile } from "../special.js";
import { checkCounts } from "./counts.js";

/** Wilson score interval for a binomial proportion [Wilson 1927]; [0, 1] for n = 0. */
export function wilsonInterval(successes: number, n: number, level = 0.95): [number, number] {
  checkCounts(successes, n, "wilsonInterval");
  checkLevel(level, "wilsonInterval");
  if (n === 0) return [0, 1];
  const z = normalQuantile(1 - (1 - level) / 2);
  const z2 = z * z;
  const phat = successes / n;
  const denom = 1 + z2 / n;
  const centre = (phat + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((phat * (1 - phat)) / n + z2 / (4 * n * n))) / denom;
  return [successes === 0 ? 0 : Math.max(0, centre - half), successes === n ? 1 : Math.min(1, centre + half)];
}
