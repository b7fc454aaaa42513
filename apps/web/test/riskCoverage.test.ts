// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  escalationSummary,
  pickPoint,
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
