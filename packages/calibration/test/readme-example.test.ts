import { describe, expect, it } from "vitest";
import {
  calibrationReport,
  chooseCalibrator,
  escalationThreshold,
  temperatureScaling,
  topLabel,
} from "../src/index.js";

// The README's example, kept runnable.
describe("README example", () => {
  it("runs and returns what it says", () => {
    const fit = { probs: Float64Array.from([0.9, 0.1, 0.4, 0.6, 0.35, 0.65]), k: 2, gold: [0, 1, 0] };
    const ts = temperatureScaling();
    const params = ts.fit(fit);
    const calibrated = { ...fit, probs: ts.apply(params, fit) };
    const report = calibrationReport(calibrated, { resamples: 200 });
    const choice = chooseCalibrator(fit, { candidates: ["temperature", "platt"], folds: 3 });
    const threshold = escalationThreshold(topLabel(calibrated), { targetRisk: 0.05 });
    expect(params.temperature).toBeGreaterThan(1); // one confident miss: softened
    expect(report.ece).toHaveLength(3);
    expect(["identity", "temperature", "platt"]).toContain(choice.winner);
    expect(threshold.minConfidence === null || threshold.minConfidence > 0.5).toBe(true);
  });
});
