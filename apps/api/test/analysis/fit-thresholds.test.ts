// The report's multi-label thresholds: a threshold tuned on the rows it is scored on flatters its F1; the
// cross-validated F1 says what tuning buys on rows it did not see.
import { labelThresholds, type MultiLabel, mulberry32 } from "@decision-workbench/calibration";
import { describe, expect, it } from "vitest";
import { heldOutTunedF1, TUNING_FOLDS } from "../../src/analysis/thresholds.js";

function synthetic(n: number, k: number, seed: number, signal: number): MultiLabel {
  const rng = mulberry32(seed);
  const probs = new Float64Array(n * k);
  const labels = new Uint8Array(n * k);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < k; j++) {
      const y = rng.float() < 0.3 ? 1 : 0;
      labels[i * k + j] = y;
      // signal 1: positives at 0.9, negatives at 0.1; 0: probabilities unrelated to the labels
      probs[i * k + j] = signal === 1 ? (y ? 0.9 : 0.1) : rng.float();
    }
  }
  return { probs, k, labels };
}

describe("heldOutTunedF1", () => {
  it("is 1 for labels the probabilities separate", () => {
    expect(heldOutTunedF1(synthetic(200, 3, 1, 1))).toEqual([1, 1, 1]);
  });

  it("is below the in-sample F1 of the tuned threshold when the probabilities carry no signal", () => {
    const d = synthetic(120, 6, 7, 0);
    const inSample = labelThresholds(d, "f1").map((t) => t.score);
    const heldOut = heldOutTunedF1(d) as number[];
    for (let j = 0; j < d.k; j++) expect(heldOut[j]).toBeLessThanOrEqual(inSample[j] + 1e-12);
    const optimism = inSample.reduce((s, x, j) => s + x - heldOut[j], 0) / d.k;
    expect(optimism).toBeGreaterThan(0.01);
  });

  it("says nothing with fewer rows than folds", () => {
    expect(heldOutTunedF1(synthetic(TUNING_FOLDS - 1, 2, 3, 1))).toEqual([null, null]);
  });
});
