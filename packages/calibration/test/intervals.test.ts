import { describe, expect, it } from "vitest";
import { biasBounded, normalSquared, percentileEstimate } from "../src/bootstrap/basic.js";
import {
  clopperPearsonInterval,
  clopperPearsonUpper,
  jeffreysInterval,
  reliabilityBins,
  wilsonInterval,
} from "../src/index.js";
import { normalQuantile } from "../src/special.js";
import { ref } from "./reference.js";

describe("intervals against scipy (fixtures/reference.json)", () => {
  it("normal quantiles (AS 241) to 1e-15 relative", () => {
    for (const { p, z } of ref.normal_quantiles)
      expect(Math.abs(normalQuantile(p) - z)).toBeLessThanOrEqual(1e-15 * Math.max(1, Math.abs(z)));
  });
  it("Jeffreys and Clopper-Pearson intervals match scipy.stats.beta.ppf to 1e-10", () => {
    for (const r of ref.intervals) {
      const j = jeffreysInterval(r.x, r.n, r.level);
      const c = clopperPearsonInterval(r.x, r.n, r.level);
      const label = `${r.x}/${r.n} @ ${r.level}`;
      expect(Math.abs(j[0] - r.jeffreys[0]), label).toBeLessThanOrEqual(1e-10);
      expect(Math.abs(j[1] - r.jeffreys[1]), label).toBeLessThanOrEqual(1e-10);
      expect(Math.abs(c[0] - r.clopper_pearson[0]), label).toBeLessThanOrEqual(1e-10);
      expect(Math.abs(c[1] - r.clopper_pearson[1]), label).toBeLessThanOrEqual(1e-10);
      expect(
        Math.abs(clopperPearsonUpper(r.x, r.n, r.level) - r.clopper_pearson_upper),
        label,
      ).toBeLessThanOrEqual(1e-10);
    }
  });
});

describe("Wilson interval", () => {
  it("matches the closed form by hand", () => {
    // 0 of 10 at 95%: upper = z^2 / (n + z^2)
    const z = 1.959963984540054;
    const [lo, hi] = wilsonInterval(0, 10);
    expect(lo).toBe(0);
    expect(hi).toBeCloseTo((z * z) / (10 + z * z), 14);
    // 5 of 10: centred at 0.5
    const [a, b] = wilsonInterval(5, 10);
    expect((a + b) / 2).toBeCloseTo(0.5, 14);
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
    expect(() => wilsonInterval(3, 2)).toThrow(/successes must be an integer in 0..2/);
  });
});

describe("reliability bins", () => {
  it("report counts, mean confidence, accuracy, intervals and sparse flags per bin", () => {
    const bins = reliabilityBins(
      { p: [0.1, 0.3, 0.35, 0.8, 0.9, 0.95], y: [0, 1, 0, 1, 1, 0] },
      { bins: 2, minCount: 3 },
    );
    expect(bins).toHaveLength(2);
    expect(bins[0]).toMatchObject({ lo: 0, hi: 0.5, count: 3, sparse: false });
    expect(bins[0].confidence).toBeCloseTo(0.25, 15);
    expect(bins[0].accuracy).toBeCloseTo(1 / 3, 15);
    expect(bins[0].interval).toEqual(wilsonInterval(1, 3));
    expect(bins[1].accuracy).toBeCloseTo(2 / 3, 15);
    const j = reliabilityBins({ p: [0.1, 0.9], y: [0, 1] }, { bins: 4, interval: "jeffreys" });
    expect(j[1]).toMatchObject({ count: 0, confidence: null, accuracy: null, interval: null, sparse: true });
    expect(j[3].interval).toEqual(jeffreysInterval(1, 1));
  });
});

describe("bootstrap interval methods of the report", () => {
  const reps = Float64Array.from({ length: 1001 }, (_, i) => 0.05 + i / 10000); // 0.05 .. 0.15, mean 0.1
  it("bias-bounded: bias-corrected point, lower end widened by the bound, upper end not bias-corrected", () => {
    const [p, lo, hi] = biasBounded(0.08, reps, 0.95, 0.01);
    expect(p).toBeCloseTo(2 * 0.08 - 0.1, 12);
    expect(lo).toBeCloseTo(0.08 - 0.01 - (0.1475 - 0.1), 12);
    expect(hi).toBeCloseTo(0.08 + (0.1 - 0.0525), 12);
    // floored at 0 and the point always inside
    const [p0, lo0, hi0] = biasBounded(0.02, reps, 0.95, 0.05);
    expect(p0).toBe(0);
    expect(lo0).toBe(0);
    expect(hi0).toBeGreaterThan(0);
  });
  it("normal-squared: sqrt of D +- z sd on the squared scale, clipped at 0", () => {
    const sq = Float64Array.from({ length: 1000 }, (_, i) => (i % 2 ? 0.01 : -0.01) + 0.002);
    const [p, lo, hi] = normalSquared(0.002, sq, 1.96);
    const sd = Math.sqrt((1000 * 0.01 ** 2) / 999);
    expect(p).toBeCloseTo(Math.sqrt(0.002), 12);
    expect(lo).toBe(0);
    expect(hi).toBeCloseTo(Math.sqrt(0.002 + 1.96 * sd), 12);
  });
  it("percentile estimate keeps the plug-in and widens to hold it", () => {
    const [p, lo, hi] = percentileEstimate(0.3, reps, 0.95);
    expect([p, hi]).toEqual([0.3, 0.3]);
    expect(lo).toBeCloseTo(0.0525, 12);
  });
});
