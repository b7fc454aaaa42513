import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import { EceSums, ece } from "../src/index.js";

/**
 * n rows of a miscalibrated binary problem: p uniform, y ~ Bernoulli(1.6 p) below 0.5 and Bernoulli(0.6 p) above
 * (under- then over-confident, so bins of other widths give other errors), with some p exactly on bin edges.
 */
function rows(n: number, seed: number) {
  const rng = mulberry32(seed);
  const rand = () => rng.float();
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    p[i] = i % 50 === 0 ? Math.round(rand() * 15) / 15 : rand();
    y[i] = rand() < (p[i] < 0.5 ? 1.6 * p[i] : 0.6 * p[i]) ? 1 : 0;
  }
  return { p, y };
}

const part = (b: { p: Float64Array; y: Uint8Array }, from: number, to: number) => ({
  p: b.p.subarray(from, to),
  y: b.y.subarray(from, to),
});

describe("ECE gathered part by part (EceSums)", () => {
  const all = rows(10_000, 7);

  it("is ece of the rows joined, to the last bits", () => {
    const s = new EceSums();
    for (const [a, b] of [
      [0, 3_000],
      [3_000, 3_000],
      [3_000, 7_777],
      [7_777, 10_000],
    ])
      s.add(part(all, a, b));
    expect(s.n).toBe(10_000);
    expect(s.value()).toBeCloseTo(ece(all), 15);
    expect(s.value()).toBeGreaterThan(0.05);
    // another bin count is another metric
    const ten = new EceSums(10);
    ten.add(all);
    expect(ten.value()).toBeCloseTo(ece(all, { bins: 10 }), 15);
    expect(ten.value()).not.toBeCloseTo(ece(all), 6);
  });

  it("is exactly the same value whatever the order of the parts and of their rows, merged or not", () => {
    const inOrder = new EceSums();
    inOrder.add(all);
    const early = new EceSums();
    const late = new EceSums();
    late.add(part(all, 6_000, 10_000));
    early.add(part(all, 2_000, 6_000));
    early.add(part(all, 0, 2_000));
    early.merge(late);
    expect(early.n).toBe(10_000);
    expect(early.value()).toBe(inOrder.value());
    // the rows reversed: the plain sum of the doubles would differ in its last bits, these do not
    const back = { p: all.p.slice().reverse(), y: all.y.slice().reverse() };
    expect(ece(back)).not.toBe(ece(all));
    const reversed = new EceSums();
    reversed.add(back);
    expect(reversed.value()).toBe(inOrder.value());
  });

  it("refuses what it cannot measure, saying what is wrong", () => {
    expect(() => new EceSums().value()).toThrow(/no items to measure/);
    expect(() => new EceSums(0)).toThrow(/bins must be a positive integer, got 0/);
    expect(() => new EceSums().add({ p: [0.5, 1.2], y: [1, 0] })).toThrow(/EceSums.add/);
    expect(() => new EceSums(15).merge(new EceSums(10))).toThrow(/10 bins into 15/);
  });
});
