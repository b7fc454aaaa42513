import { wilsonInterval } from "@decision-workbench/calibration";
import type { Rate } from "../shapes/reports.js";

/** The interval method every rate of a report uses. */
export const RATE_INTERVAL = "Wilson score interval, 95 % [Wilson 1927]";

/** x of n with its Wilson interval. x and n are counts (rounded, so a share times its n gives its count back). */
export function rateOf(x: number, n: number, level = 0.95): Rate {
  const xi = Math.round(x);
  const ni = Math.round(n);
  if (!(ni >= 0 && xi >= 0 && xi <= ni)) {
    throw new RangeError(`rateOf: need 0 <= x <= n as counts, got x = ${x}, n = ${n}`);
  }
  if (ni === 0) return { x: 0, n: 0, value: null, low: null, high: null };
  const [low, high] = wilsonInterval(xi, ni, level);
  return { x: xi, n: ni, value: xi / ni, low, high };
}
