// @vitest-environment node
import { describe, expect, it } from "vitest";
import type { ReportMetrics } from "../src/api/types";
import { metricCards, metricInfo } from "../src/transforms/metrics";

const ci = (x: number): [number, number, number] => [x, x - 0.01, x + 0.01];
const BASE: ReportMetrics = {
  accuracy: ci(0.9),
  ece: ci(0.05),
  eceMass: ci(0.04),
  mce: ci(0.2),
  classwiseEce: ci(0.06),
  smoothEce: [0.045, null, null],
  debiasedL2: ci(0.002),
  brier: ci(0.1),
  nll: ci(0.3),
  rps: ci(0.07),
  offByOne: ci(0.97),
  microF1: ci(0.8),
  macroF1: ci(0.7),
};

describe("metricCards", () => {
  it("names the bin count in the ECE labels and keeps the reading order", () => {
    const cards = metricCards(BASE, "choice", 20);
    expect(cards.map((c) => c.key)).toEqual([
      "accuracy",
      "ece",
      "eceMass",
      "mce",
      "classwiseEce",
      "smoothEce",
      "debiasedL2",
      "brier",
      "nll",
    ]);
    expect(cards[0].label).toBe("Accuracy");
    expect(cards[1].label).toBe("ECE (equal-width, 20 bins)");
    expect(cards[2].label).toBe("ECE (equal-mass, 20 bins)");
  });

  it("names the item in the accuracy label, so it is not read as the run's accuracy over all items", () => {
    const cards = metricCards(BASE, "choice", 15, "species");
    expect(cards[0].label).toBe("Accuracy, species");
    expect(cards.find((c) => c.key === "brier")?.label).toBe("Brier score");
  });

  it("shows RPS and off-by-one only for score items, micro/macro F1 only for multi-label ones", () => {
    expect(metricCards(BASE, "score", 15).map((c) => c.key)).toContain("rps");
    expect(metricCards(BASE, "score", 15).map((c) => c.key)).toContain("offByOne");
    expect(metricCards(BASE, "score", 15).map((c) => c.key)).not.toContain("microF1");
    expect(metricCards(BASE, "multi", 15).map((c) => c.key)).toEqual(
      expect.arrayContaining(["microF1", "macroF1"]),
    );
    expect(metricCards(BASE, "multi", 15).map((c) => c.key)).not.toContain("rps");
  });

  it("gives each metric its unit and direction, and nothing when the report has no metrics", () => {
    const cards = metricCards(BASE, "choice", 15);
    expect(cards.find((c) => c.key === "accuracy")).toMatchObject({ unit: "percent", better: "higher" });
    expect(cards.find((c) => c.key === "nll")).toMatchObject({ unit: "number", better: "lower" });
    expect(metricCards(null, "choice", 15)).toEqual([]);
  });
});

describe("metricInfo", () => {
  it("labels compared metrics without a bin count, and unknown names as plain numbers", () => {
    expect(metricInfo("eceMass")).toEqual({ label: "ECE (equal-mass)", unit: "percent", better: "lower" });
    expect(metricInfo("accuracy").better).toBe("higher");
    expect(metricInfo("mystery")).toEqual({ label: "mystery", unit: "number", better: "lower" });
  });
});
