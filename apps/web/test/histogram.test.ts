// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  confidenceHistogram,
  histogramAxis,
  histogramSummary,
  readHistogramScale,
  writeHistogramScale,
} from "../src/transforms/histogram";

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
    const bars = confidenceHistogram(H, "share");
    expect(bars[0].right).toBeCloseTo(10); // 2 of 20 right answers
    expect(bars[0].wrong).toBeCloseTo(75); // 6 of 8 wrong answers
    expect(bars.reduce((s, b) => s + (b.wrong ?? 0), 0)).toBeCloseTo(100);
    expect(bars[0]).toMatchObject({ rightCount: 2, wrongCount: 6 });
  });

  it("leaves empty bins out on a log scale (log 0 has no height) and keeps the counts", () => {
    const bars = confidenceHistogram(H, "log");
    expect(bars.map((b) => [b.right, b.wrong])).toEqual([
      [2, 6],
      [null, null],
      [18, 2],
    ]);
    expect(bars[1]).toMatchObject({ rightCount: 0, wrongCount: 0, total: 0 });
  });
});

describe("histogramAxis", () => {
  it("spaces count and share ticks evenly from 0 and covers the highest bar", () => {
    expect(histogramAxis(confidenceHistogram(H), "count")).toEqual({
      scale: "linear",
      domain: [0, 20],
      ticks: [0, 5, 10, 15, 20],
      label: "Count",
    });
    const share = histogramAxis(confidenceHistogram(H, "share"), "share");
    expect(share.ticks).toEqual([0, 25, 50, 75, 100]);
    expect(share.label).toBe("Share of group (%)");
  });

  it("puts a log axis on powers of ten, starting under 1 so a single answer still shows", () => {
    const big = [{ lo: 0.9, hi: 0.95, right: 1530, wrong: 1 }];
    const axis = histogramAxis(confidenceHistogram(big, "log"), "log");
    expect(axis).toEqual({
      scale: "log",
      domain: [0.5, 10_000],
      ticks: [1, 10, 100, 1000, 10_000],
      label: "Count (log scale)",
    });
  });
});

describe("the scale in the URL", () => {
  it("reads log and share, falls back to count, and leaves the default out of links", () => {
    expect(readHistogramScale(new URLSearchParams("hist=log"))).toBe("log");
    expect(readHistogramScale(new URLSearchParams("hist=share"))).toBe("share");
    expect(readHistogramScale(new URLSearchParams("hist=pie"))).toBe("count");
    expect(readHistogramScale(new URLSearchParams(""))).toBe("count");
    const sp = new URLSearchParams("tab=confidence");
    expect(writeHistogramScale(sp, "log").toString()).toBe("tab=confidence&hist=log");
    expect(writeHistogramScale(new URLSearchParams("tab=confidence&hist=log"), "count").toString()).toBe(
      "tab=confidence",
    );
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
