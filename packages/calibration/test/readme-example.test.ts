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
    expect(choice.winner).toBe("identity");
    expect(choice.warnings).toContain(
      "3 fit items: fewer than temperature needs (10), platt needs (20), vector needs (20), beta needs (30), histogram needs (100), isotonic needs (100)",
    );
    expect(choice.note).toMatch(/identity is kept/);
    expect(threshold.minConfidence === null || threshold.minConfidence > 0.5).toBe(true);
  });
});
