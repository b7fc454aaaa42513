import { describe, expect, it } from "vitest";
import { poissonDraw } from "../src/metrics/poisson.js";

// The Poisson draws behind smoothEceEstimate's Poisson bootstrap: inversion below lambda = 10, PTRS above.

function pmf(lambda: number, k: number): number {
  let logF = 0;
  for (let i = 2; i <= k; i++) logF += Math.log(i);
  return Math.exp(-lambda + k * Math.log(lambda) - logF);
}

describe("poissonDraw", () => {
  it.each([0.5, 3, 9.5, 10, 37, 500, 20000])(
    "matches Poisson(%f): mean, variance and a chi-square on its pmf",
    (lambda) => {
      const s = Int32Array.of(12345);
      const draws = 200_000;
      const counts = new Map<number, number>();
      let sum = 0;
      let sq = 0;
      let bad = 0;
      for (let i = 0; i < draws; i++) {
        const k = poissonDraw(lambda, s);
        if (!(Number.isInteger(k) && k >= 0)) bad++;
        sum += k;
        sq += k * k;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      expect(bad).toBe(0);
      const mean = sum / draws;
      const variance = sq / draws - mean * mean;
      // 5 standard errors of the mean and of the variance
      expect(Math.abs(mean - lambda)).toBeLessThan(5 * Math.sqrt(lambda / draws));
      expect(Math.abs(variance - lambda)).toBeLessThan(5 * lambda * Math.sqrt((2 + 1 / lambda) / draws));
      // chi-square over the values with expected count >= 20, the rest pooled in the two tails
      const lo = Math.floor(lambda - 6 * Math.sqrt(lambda));
      const hi = Math.ceil(lambda + 6 * Math.sqrt(lambda));
      let chi = 0;
      let cells = 0;
      let pooledObs = draws;
      let pooledExp = 1;
      for (let k = Math.max(0, lo); k <= hi; k++) {
        const e = draws * pmf(lambda, k);
        if (e < 20) continue;
        const o = counts.get(k) ?? 0;
        chi += ((o - e) * (o - e)) / e;
        cells++;
        pooledObs -= o;
        pooledExp -= e / draws;
      }
      const ePooled = pooledExp * draws;
      if (ePooled >= 20) {
        chi += ((pooledObs - ePooled) * (pooledObs - ePooled)) / ePooled;
        cells++;
      }
      // chi-square with cells - 1 degrees of freedom: below mean + 5 sd
      const df = cells - 1;
      expect(chi).toBeLessThan(df + 5 * Math.sqrt(2 * df));
    },
  );

  it("gives 0 for lambda 0", () => {
    expect(poissonDraw(0, Int32Array.of(1))).toBe(0);
  });
});
