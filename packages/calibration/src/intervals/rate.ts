import { wilsonInterval } from "./wilson.js";

/** A rate with its counts: x of n, and the 95 % Wilson score interval of x / n ([0, 1] when n = 0) [Wilson 1927]. */
export interface RateCount {
  x: number;
  n: number;
  interval: [number, number];
}

/** x of n with its 95 % Wilson score interval [Wilson 1927]. */
export function rateCount(x: number, n: number): RateCount {
  return { x, n, interval: wilsonInterval(x, n, 0.95) };
}
