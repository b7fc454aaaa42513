/** How a queued run is cut into chunks: pending examples only, sizes within bounds, a capped run whole. */

import { describe, expect, it } from "vitest";
import { chunkRanges } from "../src/engine/engine.js";

const covered = (ranges: [number, number][], stored: Set<number>) =>
  ranges.flatMap(([from, to]) =>
    Array.from({ length: to - from }, (_, i) => from + i).filter((i) => !stored.has(i)),
  );

describe("chunkRanges", () => {
  it("covers every pending example once, in order, about pending/64 each (100 to 10,000)", () => {
    expect(chunkRanges(5000, new Int32Array(), false)).toHaveLength(50);
    const big = chunkRanges(320_000, new Int32Array(), false);
    expect(big).toHaveLength(64);
    expect(big[0]).toEqual([0, 5000]);
    expect(big.at(-1)?.[1]).toBe(320_000);
    const huge = chunkRanges(1_000_000, new Int32Array(), false);
    expect(huge).toHaveLength(100); // 10,000 at most
    expect(huge[0]).toEqual([0, 10_000]);
  });

  it("skips stored examples and counts only pending ones toward a chunk", () => {
    const stored = Int32Array.from([0, 1, 2, 150, 151, 299]);
    const ranges = chunkRanges(300, stored, false);
    expect(covered(ranges, new Set(stored))).toEqual(
      Array.from({ length: 300 }, (_, i) => i).filter((i) => !new Set(stored).has(i)),
    );
    expect(ranges[0][0]).toBe(3);
    expect(ranges.every(([from, to]) => to > from)).toBe(true);
  });

  it("gives a capped run one chunk and a finished run none", () => {
    expect(chunkRanges(5000, Int32Array.from([0, 1]), true)).toEqual([[2, 5000]]);
    expect(chunkRanges(3, Int32Array.from([0, 1, 2]), false)).toEqual([]);
  });
});
