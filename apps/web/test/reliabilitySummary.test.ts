// @vitest-environment node
import { describe, expect, it } from "vitest";
import { reliabilityPoints, reliabilitySummary } from "../src/transforms/reliability";

const bin = (lo: number, count: number, confidence: number, accuracy: number, sparse = false) => ({
  lo,
  hi: lo + 0.1,
  count,
  confidence,
  accuracy,
  low: null,
  high: null,
  sparse,
});

describe("reliabilitySummary", () => {
  it("names the answers, the confidence ranges and the widest gap of the ranges that are not sparse", () => {
    const points = reliabilityPoints([
      bin(0.5, 20, 0.55, 0.6),
      bin(0.8, 40, 0.85, 0.727),
      bin(0.9, 3, 0.95, 0.333, true),
    ]);
    expect(reliabilitySummary(points)).toBe(
      "63 answers over 3 confidence ranges; widest gap: over-confident by 12.3 pp around 85% confidence",
    );
  });

  it("says 1 answer and 1 range, and when every range is sparse", () => {
    expect(reliabilitySummary(reliabilityPoints([bin(0.9, 1, 0.95, 1, true)]))).toBe(
      "1 answer over 1 confidence range, all with fewer than 10 answers",
    );
    expect(reliabilitySummary([])).toBe("no answers");
  });
});
