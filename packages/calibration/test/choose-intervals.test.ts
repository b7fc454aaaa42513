import { describe, expect, it } from "vitest";
import { type CandidateResult, calibrationReport, chooseCalibrator } from "../src/index.js";
import { synthetic } from "./synthetic.js";

// chooseCalibrator's per-candidate held-out metrics and paired differences: every point inside its own interval, and
// the held-out calibration errors with the report's bias-aware intervals (not percentile intervals of a biased
// statistic, which a calibrated candidate's ECE lies below).

const METRICS = ["accuracy", "nll", "brier", "ece", "eceMass", "mce", "mceMass"] as const;

function pointsInside(c: CandidateResult): void {
  for (const side of [c.heldOut!, c.delta!]) {
    for (const m of METRICS) {
      const [point, low, high] = side[m];
      expect(low, `${c.method} ${m}`).toBeLessThanOrEqual(point);
      expect(point, `${c.method} ${m}`).toBeLessThanOrEqual(high);
    }
  }
}

describe("chooseCalibrator: held-out intervals hold their points", () => {
  it("on calibrated, over- and underconfident data and on few items", () => {
    let scored = 0;
    for (const [n, temperature, seed] of [
      [2000, 1, 1],
      [2000, 0.6, 2],
      [1500, 1.6, 3],
      [60, 0.8, 4],
    ] as const) {
      const fit = synthetic({ n, k: 4, temperature, seed });
      const r = chooseCalibrator(fit, { resamples: 200, seed });
      for (const c of r.candidates) {
        if (!c.heldOut) continue;
        scored++;
        pointsInside(c);
      }
    }
    expect(scored).toBeGreaterThanOrEqual(16);
  });

  it("held-out ECE and MCE are the report's bias-aware estimates, the plug-in bias removed", () => {
    // identity's held-out probabilities are the fit split's own: its heldOut is the report's bias-aware estimate
    let below = 0;
    for (let seed = 10; seed < 30; seed++) {
      const fit = synthetic({ n: 1000, k: 3, temperature: 1, seed });
      const r = chooseCalibrator(fit, { resamples: 200, seed, candidates: ["temperature"] });
      const identity = r.candidates.find((c) => c.method === "identity")!;
      const report = calibrationReport(fit, { resamples: 200, seed });
      for (const m of ["ece", "eceMass", "mce", "mceMass"] as const) {
        expect(identity.heldOut![m]).toEqual(report[m]);
        expect(identity.heldOut![m][1]).toBeLessThanOrEqual(identity.heldOut![m][0]);
        expect(identity.heldOut![m][0]).toBeLessThanOrEqual(identity.heldOut![m][2]);
      }
      expect(identity.heldOut!.nll).toEqual(report.nll);
      // the plug-in ECE (what a percentile interval is built around) lies above the bias-corrected point
      if (report.plugin.ece > identity.heldOut!.ece[0]) below++;
    }
    expect(below).toBeGreaterThanOrEqual(15);
  });
});
