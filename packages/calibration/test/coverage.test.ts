// Coverage of the report's calibration-error intervals at n = 1000, 200 seeded reports per setting (1000 resamples
// each); the simulation and the population truth are in coverage-sim.ts. Figures for every metric: bench/coverage.ts.
import { describe, expect, it } from "vitest";
import { simulate } from "./coverage-sim.js";

const REQUIRED = ["ece", "eceMass", "mce", "mceMass", "classwiseEce", "debiasedCalibrationError"] as const;

describe("interval coverage at n = 1000 (200 seeded trials each)", () => {
  it("true ECE about 0.08 (T = 0.7): ECE and MCE (both binnings), classwise and debiased L2 cover >= 93 %", () => {
    const s = simulate(0.7);
    expect(s.truth.ece).toBeGreaterThan(0.075);
    expect(s.truth.ece).toBeLessThan(0.095);
    for (const m of REQUIRED) expect(s.coverage[m], m).toBeGreaterThanOrEqual(0.93);
    expect(s.pointOutside).toBe(0);
    expect(s.rejections).toBeGreaterThan(0.95); // clearly miscalibrated: the consistency test rejects
  }, 300_000);

  it("true ECE about 0.03 (T = 0.88): at least 93 %", () => {
    const s = simulate(0.88);
    expect(s.truth.ece).toBeGreaterThan(0.025);
    expect(s.truth.ece).toBeLessThan(0.04);
    for (const m of REQUIRED) expect(s.coverage[m], m).toBeGreaterThanOrEqual(0.93);
    expect(s.pointOutside).toBe(0);
  }, 300_000);

  it("perfect calibration (T = 1, every true error 0): the intervals reach 0 at least 93 % of the time", () => {
    const s = simulate(1);
    for (const v of Object.values(s.truth)) expect(v).toBeLessThan(1e-12);
    for (const m of [...REQUIRED, "mce", "mceMass"] as const)
      expect(s.coverage[m], m).toBeGreaterThanOrEqual(0.93);
    expect(s.pointOutside).toBe(0);
    expect(s.rejections).toBeLessThanOrEqual(0.09);
  }, 300_000);
});
