// @vitest-environment node

import type { Metrics } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import {
  consistencyVerdict,
  intervalSummary,
  metricCards,
  metricInfo,
  pValueText,
} from "../src/transforms/metrics";

const ci = (x: number): [number, number, number] => [x, x - 0.01, x + 0.01];
const BASE: Metrics = {
  accuracy: ci(0.9),
  ece: ci(0.05),
  eceMass: ci(0.04),
  mce: ci(0.2),
  mceMass: ci(0.25),
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

describe("MCE follows the binning", () => {
  it("shows one MCE card, over the bins of the chosen binning, with the bin count in its label", () => {
    const width = metricCards(BASE, "choice", 10, undefined, "width");
    const mass = metricCards(BASE, "choice", 10, undefined, "mass");
    expect(width.filter((c) => c.label.startsWith("MCE")).map((c) => [c.key, c.label, c.ci[0]])).toEqual([
      ["mce", "MCE (equal-width, 10 bins)", 0.2],
    ]);
    expect(mass.filter((c) => c.label.startsWith("MCE")).map((c) => [c.key, c.label, c.ci[0]])).toEqual([
      ["mceMass", "MCE (equal-mass, 10 bins)", 0.25],
    ]);
    // both ECE cards stay: the report shows the two binnings side by side
    expect(mass.map((c) => c.key)).toEqual(expect.arrayContaining(["ece", "eceMass"]));
  });

  it("labels the compared equal-mass MCE without a bin count", () => {
    expect(metricInfo("mceMass").label).toBe("MCE (equal-mass)");
  });
});

describe("interval methods", () => {
  const methods = {
    accuracy: "bootstrap percentile",
    ece: "basic bootstrap, bias-corrected point",
    mce: "basic bootstrap, bias-corrected point",
  };

  it("puts each card's method on the card, and none where the report names none", () => {
    const cards = metricCards(BASE, "choice", 15, undefined, "width", methods);
    expect(cards.find((c) => c.key === "ece")?.method).toBe(methods.ece);
    expect(cards.find((c) => c.key === "brier")?.method).toBeUndefined();
  });

  it("groups the metrics by method in words", () => {
    expect(intervalSummary(methods)).toBe(
      "Accuracy: bootstrap percentile; ECE (equal-width), MCE (equal-width): basic bootstrap, bias-corrected point",
    );
    expect(intervalSummary(null)).toBe("none");
  });
});

describe("consistencyVerdict", () => {
  const test = (pValue: number) => ({ statistic: "ece" as const, pValue, resamples: 1000, method: "m" });

  it("says consistent with perfect calibration at p >= 0.05 and evidence of miscalibration below", () => {
    expect(consistencyVerdict(test(0.41))).toMatchObject({
      verdict: "consistent",
      text: "Consistent with perfect calibration: p = 0.41",
    });
    expect(consistencyVerdict(test(0.049))).toMatchObject({
      verdict: "miscalibrated",
      text: "Evidence of miscalibration: p = 0.049",
    });
    expect(consistencyVerdict(test(0.0499)).text).toBe("Evidence of miscalibration: p = 0.0499");
    expect(consistencyVerdict(test(1 / 1001)).text).toBe("Evidence of miscalibration: p < 0.001");
    expect(consistencyVerdict(test(0.41)).how).toBe(
      "consistency resampling, 1,000 draws (Bröcker & Smith 2007)",
    );
  });
});

describe("pValueText", () => {
  it("keeps two significant digits unless rounding would cross 0.05", () => {
    expect(pValueText(0.4126)).toBe("p = 0.41");
    expect(pValueText(0.0123)).toBe("p = 0.012");
    expect(pValueText(0.04996)).toBe("p = 0.04996");
    expect(pValueText(0.0504)).toBe("p = 0.05");
    expect(pValueText(0.0009)).toBe("p < 0.001");
  });
});

describe("plain values of bias-corrected estimates", () => {
  it("notes the plain value on the cards that have one, in the card's unit", () => {
    const cards = metricCards(BASE, "choice", 15, undefined, "width", null, {
      ece: 0.018,
      debiasedL2: 0.0012,
      eceMass: BASE.eceMass[0],
    });
    // a point equal to its plain value needs no note
    expect(cards.find((c) => c.key === "eceMass")?.note).toBeUndefined();
    expect(cards.find((c) => c.key === "ece")?.note).toBe("bias-corrected; 1.8% plain");
    expect(cards.find((c) => c.key === "debiasedL2")?.note).toBe("bias-corrected; 0.001 plain");
    expect(cards.find((c) => c.key === "accuracy")?.note).toBeUndefined();
  });
});
