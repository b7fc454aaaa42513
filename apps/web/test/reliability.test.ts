// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  binCalibrationError,
  countBars,
  gapAreas,
  overlaySeries,
  reliabilityPoints,
  SERIES_COLORS,
} from "../src/transforms/reliability";
import { bin } from "./fixtures";

describe("reliabilityPoints", () => {
  it("puts each non-empty bin at (mean confidence, accuracy) in percent with interval offsets", () => {
    const pts = reliabilityPoints([bin(0.8, 0.9, 40, 0.85, 0.7), bin(0.9, 1, 0, null, null)]);
    expect(pts).toHaveLength(1);
    const p = pts[0];
    expect(p.x).toBeCloseTo(85);
    expect(p.y).toBeCloseTo(70);
    // interval 0.6..0.8 around 0.7 -> 10 points either side
    expect(p.err[0]).toBeCloseTo(10);
    expect(p.err[1]).toBeCloseTo(10);
    expect(p.gap).toBeCloseTo(-15);
    expect(p.sparse).toBe(false);
    expect([p.lo, p.hi]).toEqual([80, 90]);
  });

  it("greys out the bins the API flags as sparse, whatever their count", () => {
    const [few, flagged] = reliabilityPoints([
      { ...bin(0, 0.5, 3, 0.4, 0.3), sparse: false },
      { ...bin(0.5, 1, 50, 0.7, 0.7), sparse: true },
    ]);
    expect(few.sparse).toBe(false);
    expect(flagged.sparse).toBe(true);
  });

  it("never gives negative error-bar offsets when the interval misses the point", () => {
    const [p] = reliabilityPoints([{ ...bin(0, 1, 20, 0.5, 0.5), low: 0.6, high: 0.4 }]);
    expect(p.err).toEqual([0, 0]);
  });
});

describe("gapAreas", () => {
  it("shades between accuracy and confidence over the bin width, by direction", () => {
    const gaps = gapAreas([
      bin(0.8, 0.9, 40, 0.85, 0.7),
      bin(0.2, 0.3, 40, 0.25, 0.4),
      bin(0.5, 0.6, 40, 0.5, 0.5),
    ]);
    expect(gaps).toHaveLength(2);
    expect(gaps[0]).toMatchObject({ x1: 80, x2: 90, direction: "over", sparse: false });
    expect(gaps[0].y1).toBeCloseTo(70);
    expect(gaps[0].y2).toBeCloseTo(85);
    expect(gaps[1].direction).toBe("under");
    expect(gaps[1].y1).toBeCloseTo(25);
    expect(gaps[1].y2).toBeCloseTo(40);
  });
});

describe("countBars", () => {
  it("keeps empty bins and gives each bar its share", () => {
    const bars = countBars([
      bin(0, 0.5, 30, 0.3, 0.3),
      bin(0.5, 0.75, 0, null, null),
      bin(0.75, 1, 10, 0.9, 0.9),
    ]);
    expect(bars.map((b) => b.count)).toEqual([30, 0, 10]);
    expect(bars[0].share).toBeCloseTo(0.75);
    expect(bars[2].x1).toBe(75);
    expect(countBars([bin(0, 1, 0, null, null)])[0].share).toBe(0);
  });
});

describe("binCalibrationError", () => {
  it("weights each bin's gap by its count (ECE) and takes the largest (MCE)", () => {
    // gaps 0.1 (n=30) and 0.3 (n=10): ECE = (3 + 3) / 40 = 0.15, MCE = 0.3
    const e = binCalibrationError([
      bin(0, 0.5, 30, 0.4, 0.3),
      bin(0.5, 1, 10, 0.9, 0.6),
      bin(0.5, 1, 0, null, null),
    ]);
    expect(e.ece).toBeCloseTo(0.15);
    expect(e.mce).toBeCloseTo(0.3);
    expect(e.n).toBe(40);
    expect(Number.isNaN(binCalibrationError([]).ece)).toBe(true);
  });
});

describe("overlaySeries", () => {
  it("names and colours each run in order", () => {
    const s = overlaySeries([[bin(0, 1, 20, 0.5, 0.5)], []], ["before"]);
    expect(s.map((x) => x.name)).toEqual(["before", "series 2"]);
    expect(s[0].color).toBe(SERIES_COLORS[0]);
    expect(s[1].color).toBe(SERIES_COLORS[1]);
    expect(s[1].points).toEqual([]);
    expect(s[0].points[0].series).toBe("before");
  });
});
