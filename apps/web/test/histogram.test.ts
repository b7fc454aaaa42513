// @vitest-environment node
import { describe, expect, it } from "vitest";
import { confidenceHistogram, histogramSummary } from "../src/transforms/histogram";

const H = [
  { lo: 0.5, hi: 0.55, right: 2, wrong: 6 },
  { lo: 0.55, hi: 0.6, right: 0, wrong: 0 },
  { lo: 0.95, hi: 1, right: 18, wrong: 2 },
];

describe("confidenceHistogram", () => {
  it("gives counts, the bin centre and the wrong share", () => {
    const bars = confidenceHistogram(H);
    expect(bars[0]).toMatchObject({ range: "50–55%", right: 2, wrong: 6, total: 8 });
    expect(bars[0].x).toBeCloseTo(52.5);
    expect(bars[0].wrongShare).toBeCloseTo(0.75);
    expect(Number.isNaN(bars[1].wrongShare)).toBe(true);
  });

  it("normalises each group to shares of itself so a small wrong group stays visible", () => {
    const bars = confidenceHistogram(H, true);
    expect(bars[0].right).toBeCloseTo(10); // 2 of 20 right answers
    expect(bars[0].wrong).toBeCloseTo(75); // 6 of 8 wrong answers
    expect(bars.reduce((s, b) => s + b.wrong, 0)).toBeCloseTo(100);
  });
});

describe("histogramSummary", () => {
  it("totals both groups and their mean confidence from bin centres", () => {
    const s = histogramSummary(H);
    expect(s.right).toBe(20);
    expect(s.wrong).toBe(8);
    expect(s.meanRight).toBeCloseTo((2 * 0.525 + 18 * 0.975) / 20);
    expect(s.meanWrong).toBeCloseTo((6 * 0.525 + 2 * 0.975) / 8);
    expect(Number.isNaN(histogramSummary([]).meanRight)).toBe(true);
  });
});
