/** Axis ticks: evenly spaced "nice" values from 0, and powers of ten for log scales. */

/** Steps a linear axis may use, per power of ten. */
const NICE_STEPS = [1, 2, 2.5, 5, 10];

/**
 * Evenly spaced ticks from 0 that cover `max` in about `target` steps, each step 1, 2, 2.5 or 5 times a power of
 * ten: 4.3 -> [0, 2, 4, 6], 100 -> [0, 25, 50, 75, 100]; an empty
 * axis (0, NaN) runs from 0 to 1. The last tick is the axis maximum.
 */
export function niceTicks(max: number, target = 4): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  const raw = top / Math.max(1, target);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = (NICE_STEPS.find((s) => s * power >= raw - 1e-12) ?? 10) * power;
  const n = Math.ceil(top / step - 1e-9);
  // Rounded to the step's own decimals so 0.1 + 0.2 does not print as 0.30000000000000004.
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Array.from({ length: n + 1 }, (_, i) => Number((i * step).toFixed(digits)));
}

/** Powers of ten from 1 up to the first one at or above `max` (at least [1, 10]), for a log count axis. */
export function logTicks(max: number): number[] {
  const top = Number.isFinite(max) && max > 10 ? max : 10;
  const out = [1];
  while (out[out.length - 1] < top) out.push(out[out.length - 1] * 10);
  return out;
}
