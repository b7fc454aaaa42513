import { describe, expect, it } from "vitest";
import { calibrationReport, mulberry32 } from "../src/index.js";

describe("calibration errors stay in [0, 1]", () => {
  it("no bound of an ECE-type metric leaves [0, 1] on small, badly miscalibrated data", () => {
    const random = mulberry32(7);
    const rnd = () => random.float();
    let worst = 0;
    for (let trial = 0; trial < 60; trial++) {
      const n = 8 + Math.floor(rnd() * 30);
      const probs = new Float64Array(n * 2);
      const gold = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const p = 0.5 + 0.5 * rnd();
        probs[2 * i] = p;
        probs[2 * i + 1] = 1 - p;
        gold[i] = rnd() < 0.15 ? 0 : 1;
      }
      const r = calibrationReport({ probs, k: 2, gold }, { resamples: 200, seed: trial });
      for (const e of [r.ece, r.eceMass, r.mce, r.mceMass, ...Object.values(r.intervals)]) {
        worst = Math.max(worst, e[2]);
        expect(e[1]).toBeGreaterThanOrEqual(0);
        expect(e[2]).toBeLessThanOrEqual(1);
      }
    }
    expect(worst).toBeGreaterThan(0.8);
  });
});
