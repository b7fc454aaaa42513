// @vitest-environment node
import { describe, expect, it } from "vitest";
import { logTicks, niceTicks } from "../src/transforms/axis";

/** True when every step between neighbouring ticks is the same. */
function even(ticks: number[]): boolean {
  const step = ticks[1] - ticks[0];
  return ticks.every((t, i) => i === 0 || Math.abs(t - ticks[i - 1] - step) < 1e-9);
}

describe("niceTicks", () => {
  it("covers the maximum with evenly spaced nice steps from 0", () => {
    expect(niceTicks(4.3)).toEqual([0, 2, 4, 6]);
    expect(niceTicks(5)).toEqual([0, 2, 4, 6]);
    expect(niceTicks(100)).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(12)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(0.3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(1530)).toEqual([0, 500, 1000, 1500, 2000]);
  });

  it("treats an empty or zero axis as 0 to 1", () => {
    expect(niceTicks(0)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(niceTicks(Number.NaN)).toEqual([0, 0.25, 0.5, 0.75, 1]);
  });

  it("is evenly spaced and reaches the maximum for any value", () => {
    for (const max of [0.7, 1, 3, 7.5, 9.99, 17, 42, 63, 99, 101, 777, 12_345]) {
      const t = niceTicks(max);
      expect(even(t), String(max)).toBe(true);
      expect(t[t.length - 1]).toBeGreaterThanOrEqual(max);
      expect(t.length).toBeLessThanOrEqual(6);
    }
  });
});

describe("logTicks", () => {
  it("gives powers of ten up to the maximum", () => {
    expect(logTicks(1)).toEqual([1, 10]);
    expect(logTicks(150)).toEqual([1, 10, 100, 1000]);
    expect(logTicks(1000)).toEqual([1, 10, 100, 1000]);
  });
});
