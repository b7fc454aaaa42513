// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  escalationSummary,
  pickPoint,
  riskAxis,
  riskCoverageSeries,
  thresholdForRisk,
} from "../src/transforms/riskCoverage";

const RAW = [
  { threshold: 0.9, coverage: 0.4, risk: 0.01, escalated: 60 },
  { threshold: 0.5, coverage: 1, risk: 0.12, escalated: 0 },
  { threshold: 0.7, coverage: 0.8, risk: 0.04, escalated: 20 },
];

describe("riskCoverageSeries", () => {
  it("sorts by threshold and converts shares to percent", () => {
    const s = riskCoverageSeries(RAW);
    expect(s.map((p) => p.threshold)).toEqual([0.5, 0.7, 0.9]);
    expect(s[1].coverage).toBeCloseTo(80);
    expect(s[1].risk).toBeCloseTo(4);
    expect(s[1].escalated).toBe(20);
  });
});

describe("pickPoint", () => {
  it("takes the nearest threshold, the lower one on a tie", () => {
    const s = riskCoverageSeries(RAW);
    expect(pickPoint(s, 0.74)?.threshold).toBe(0.7);
    expect(pickPoint(s, 0.6)?.threshold).toBe(0.5);
    expect(pickPoint(s, 2)?.threshold).toBe(0.9);
    expect(pickPoint([], 0.5)).toBeNull();
  });
});

describe("thresholdForRisk", () => {
  it("finds the lowest threshold whose answered-alone error is within the target", () => {
    const s = riskCoverageSeries(RAW);
    expect(thresholdForRisk(s, 0.05)?.threshold).toBe(0.7);
    expect(thresholdForRisk(s, 0.2)?.threshold).toBe(0.5);
    expect(thresholdForRisk(s, 0.005)).toBeNull();
  });
});

describe("escalationSummary", () => {
  it("reads out the escalation volume and the answered-alone error", () => {
    const s = riskCoverageSeries(RAW);
    const e = escalationSummary(s[1], 100);
    expect(e.answeredShare).toBeCloseTo(0.8);
    expect(e.escalated).toBe(20);
    expect(e.escalatedShare).toBeCloseTo(0.2);
    expect(e.risk).toBeCloseTo(0.04);
  });
});

describe("the answered-alone error as x of n", () => {
  it("counts the wrong answers among those answered alone, with the Wilson interval", () => {
    const s = riskCoverageSeries(RAW);
    // 100 usable rows, 80 % answered alone, 4 % of them wrong: 3 of 80 (3.75 %, rounded from the curve's share)
    const e = escalationSummary(s[1], 100, 100);
    expect(e.riskRate).toMatchObject({ x: 3, n: 80 });
    expect(e.riskRate?.low).toBeCloseTo(0.0128346, 6); // Wilson 1927, computed with Python's NormalDist
    expect(e.riskRate?.high).toBeCloseTo(0.1045472, 6);
    expect(escalationSummary(s[1], 100).riskRate).toBeUndefined();
  });

  it("has no share when nothing is answered alone", () => {
    const none = escalationSummary({ threshold: 1, coverage: 0, risk: 0, escalated: 100 }, 100, 100);
    expect(none.riskRate).toEqual({ x: 0, n: 0, value: null, low: null, high: null });
  });
});

describe("riskAxis", () => {
  it("gives evenly spaced nice ticks from 0 that reach the highest risk and the target", () => {
    const pts = riskCoverageSeries([
      { threshold: 0.5, coverage: 1, risk: 0.043, escalated: 0 },
      { threshold: 0.9, coverage: 0.5, risk: 0.01, escalated: 50 },
    ]);
    expect(riskAxis(pts, 0.05)).toEqual({ domain: [0, 6], ticks: [0, 2, 4, 6] });
    expect(riskAxis(pts, 0.2).ticks).toEqual([0, 5, 10, 15, 20]);
    const all = riskCoverageSeries([{ threshold: 0.5, coverage: 1, risk: 1, escalated: 0 }]);
    expect(riskAxis(all, 0.05)).toEqual({ domain: [0, 100], ticks: [0, 25, 50, 75, 100] });
  });
});
