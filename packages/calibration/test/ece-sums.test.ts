import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import { EceSums, ece } from "../src/index.js";

/** n rows of a miscalibrated binary problem: p uniform, y ~ Bernoulli(p^2), with some p exactly on bin edges. */
function rows(n: number, seed: number) {
  const rng = mulberry32(seed);
  const rand = () => rng.float();
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    p[i] = i % 50 === 0 ? Math.round(rand() * 15) / 15 : rand();
    y[i] = rand() < p[i] * p[i] ? 1 : 0;
  }
  return { p, y };
}

const part = (b: { p: Float64Array; y: Uint8Array }, from: number, to: number) => ({
  p: b.p.subarray(from, to),
  y: b.y.subarray(from, to),
});

describe("ECE gathered part by part (EceSums)", () => {
  const all = rows(10_000, 7);

  it("is ece of the rows joined, bit for bit, when the parts come in order", () => {
    const s = new EceSums();
    for (const [a, b] of [
      [0, 3_000],
      [3_000, 3_000],
      [3_000, 7_777],
      [7_777, 10_000],
    ])
      s.add(part(all, a, b));
    expect(s.n).toBe(10_000);
    expect(s.value()).toBe(ece(all));
    expect(s.value()).toBeGreaterThan(0.05);
  });

  it("is the same up to the last bits in any order, and merged from several accumulators", () => {
    const early = new EceSums();
    const late = new EceSums();
    late.add(part(all, 6_000, 10_000));
    early.add(part(all, 2_000, 6_000));
    early.add(part(all, 0, 2_000));
    early.merge(late);
    expect(early.n).toBe(10_000);
    expect(early.value()).toBeCloseTo(ece(all), 13);
    // another bin count is another metric
    const ten = new EceSums(10);
    ten.add(all);
    expect(ten.value()).toBe(ece(all, { bins: 10 }));
    expect(ten.value()).not.toBe(ece(all));
  });

  it("refuses what it cannot measure, saying what is wrong", () => {
    expect(() => new EceSums().value()).toThrow(/no items to measure/);
    expect(() => new EceSums(0)).toThrow(/bins must be a positive integer, got 0/);
    expect(() => new EceSums().add({ p: [0.5, 1.2], y: [1, 0] })).toThrow(/EceSums.add/);
    expect(() => new EceSums(15).merge(new EceSums(10))).toThrow(/10 bins into 15/);
  });
});
