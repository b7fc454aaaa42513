// @vitest-environment node
import { describe, expect, it } from "vitest";
import { thresholdSeries, thresholdTable } from "../src/transforms/thresholds";

const curve = [
  { t: 1, precision: 1, recall: 0, f1: 0 },
  { t: 0, precision: 0.2, recall: 1, f1: 0.33 },
  { t: 0.5, precision: 0.6, recall: 0.6, f1: 0.6 },
];

describe("thresholdSeries", () => {
  it("sorts the curve by threshold and converts to percent", () => {
    const s = thresholdSeries({ label: "link", curve, tuned: 0.42, f1At05: 0.6, f1Tuned: 0.7 });
    expect(s.points.map((p) => p.t)).toEqual([0, 50, 100]);
    expect(s.points[1]).toEqual({ t: 50, precision: 60, recall: 60, f1: 60 });
    expect(s.tuned).toBeCloseTo(42);
    expect(s.gain).toBeCloseTo(0.1);
  });

  it("keeps a label that never applies without a tuned threshold", () => {
    expect(thresholdSeries({ label: "x", curve, tuned: null, f1At05: 0, f1Tuned: 0 }).tuned).toBeNull();
  });
});

describe("thresholdTable", () => {
  it("puts the labels that gain most from tuning first, then by name", () => {
    const rows = thresholdTable([
      { label: "b", curve, tuned: 0.5, f1At05: 0.5, f1Tuned: 0.5 },
      { label: "c", curve, tuned: 0.3, f1At05: 0.5, f1Tuned: 0.8 },
      { label: "a", curve, tuned: 0.5, f1At05: 0.4, f1Tuned: 0.4 },
    ]);
    expect(rows.map((r) => r.label)).toEqual(["c", "a", "b"]);
  });
});

describe("held-out F1 of a tuned threshold", () => {
  it("carries the cross-validated F1 and its gain over 0.5, and orders by it when present", () => {
    const s = thresholdSeries({
      label: "q",
      curve,
      tuned: 0.4,
      f1At05: 0.6,
      f1Tuned: 0.8,
      f1TunedHeldOut: 0.55,
    });
    expect(s.f1HeldOut).toBe(0.55);
    expect(s.gain).toBeCloseTo(0.2);
    expect(s.gainHeldOut).toBeCloseTo(-0.05);
    // in-sample, b gains most; on unseen rows, a does
    const rows = thresholdTable([
      { label: "b", curve, tuned: 0.3, f1At05: 0.5, f1Tuned: 0.9, f1TunedHeldOut: 0.45 },
      { label: "a", curve, tuned: 0.5, f1At05: 0.5, f1Tuned: 0.6, f1TunedHeldOut: 0.58 },
    ]);
    expect(rows.map((r) => r.label)).toEqual(["a", "b"]);
  });

  it("is null when the API gives none (reports stored before it)", () => {
    const s = thresholdSeries({ label: "q", curve, tuned: 0.4, f1At05: 0.6, f1Tuned: 0.8 });
    expect([s.f1HeldOut, s.gainHeldOut]).toEqual([null, null]);
  });
});
