// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  count,
  duration,
  formatCI,
  formatDelta,
  formatInterval,
  headlineAccuracy,
  label,
  num,
  pct,
  plural,
  sig,
  usd,
} from "../src/transforms/format";

describe("format", () => {
  it("shows shares as percentages and missing values as a dash", () => {
    expect(pct(0.834)).toBe("83.4%");
    expect(pct(1, 0)).toBe("100%");
    expect(pct(null)).toBe("—");
    expect(pct(Number.NaN)).toBe("—");
  });

  it("keeps small numbers readable instead of rounding them to zero", () => {
    expect(num(0.0812)).toBe("0.081");
    expect(num(0.00004)).toBe("0.000040");
    expect(num(0)).toBe("0.000");
  });

  it("formats a CI with its interval, or the point alone when it was not resampled", () => {
    expect(formatCI([0.834, 0.801, 0.862], "percent")).toBe("83.4% (80.1–86.2%)");
    expect(formatCI([0.081, 0.072, 0.09], "number")).toBe("0.081 (0.072–0.090)");
    expect(formatCI([0.02, null, null], "percent")).toBe("2.0%");
    expect(formatInterval([0.02, null, null], "percent")).toBe("");
    expect(formatCI(undefined, "percent")).toBe("—");
  });

  it("signs deltas, in percentage points for percentages", () => {
    expect(formatDelta(0.023, "percent")).toBe("+2.3 pp");
    expect(formatDelta(-0.0125, "number")).toBe("−0.013");
    expect(formatDelta(0, "percent")).toBe("±0.0 pp");
  });

  it("formats counts, money, durations and labels", () => {
    expect(count(100000)).toBe("100,000");
    expect(usd(0)).toBe("$0");
    expect(usd(0.01234)).toBe("$0.0123");
    expect(usd(12.5)).toBe("$12.50");
    expect(duration(850)).toBe("850 ms");
    expect(duration(12300)).toBe("12.3 s");
    expect(duration(192000)).toBe("3 min 12 s");
    expect(label(["a", "b"])).toBe("a, b");
    expect(label([])).toBe("(none)");
    expect(label(null)).toBe("—");
  });

  it("gives a run's headline accuracy its count and Wilson interval when the API kept the count", () => {
    expect(headlineAccuracy({ accuracy: 0.5, n: 2 })).toBe("50.0% (1/2, 9.5–90.5%)");
    expect(headlineAccuracy({ accuracy: 1, n: 1 })).toMatch(/^100\.0% \(1\/1, 20\.7–100\.0%\)$/);
    expect(headlineAccuracy({ accuracy: 0.75 })).toBe("75.0%");
    expect(headlineAccuracy({ accuracy: null, n: 0 })).toBe("—");
  });
});

describe("plural", () => {
  it("says 1 answer, 2 answers, 0 answers and groups thousands", () => {
    expect(plural(1, "answer")).toBe("1 answer");
    expect(plural(2, "answer")).toBe("2 answers");
    expect(plural(0, "answer")).toBe("0 answers");
    expect(plural(1530, "answer")).toBe("1,530 answers");
    expect(plural(1, "entry", "entries")).toBe("1 entry");
    expect(plural(3, "entry", "entries")).toBe("3 entries");
  });
});

describe("sig", () => {
  it("writes a number to 3 significant digits, a large one whole with separators", () => {
    expect(sig(0.9494938803943613)).toBe("0.949");
    expect(sig(0.31)).toBe("0.310");
    expect(sig(12.345)).toBe("12.3");
    expect(sig(-0.0456789)).toBe("-0.0457");
    expect(sig(123456.7)).toBe("123,457");
    expect(sig(0.5, 2)).toBe("0.50");
    expect(sig(Number.NaN)).toBe("—");
  });
});
