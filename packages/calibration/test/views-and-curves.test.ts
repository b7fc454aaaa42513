import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import {
  assignBins,
  classView,
  classwiseReliability,
  labelCalibrator,
  massEdges,
  reliabilityBins,
  smoothEce,
  smoothReliability,
  widthEdges,
} from "../src/index.js";

describe("edges and bin assignment", () => {
  it("width edges are numpy.linspace and values on an edge fall in the lower bin", () => {
    const e = widthEdges(5);
    expect(Array.from(e)).toEqual([0, 0.2, 0.4, 0.6000000000000001, 0.8, 1]);
    expect(Array.from(assignBins([0, 0.2, 0.2000001, 0.6, 1], e))).toEqual([0, 0, 1, 2, 4]);
  });
  it("mass edges interpolate between order statistics and put ties below the edge", () => {
    const e = massEdges([0.1, 0.5, 0.5, 0.5, 0.9], 2);
    expect(Array.from(e)).toEqual([0.1, 0.5, 0.9]);
    expect(Array.from(assignBins([0.1, 0.5, 0.5, 0.5, 0.9], e))).toEqual([0, 0, 0, 0, 1]);
  });
});

describe("bin assignment and quantiles against brute force", () => {
  it("any sorted edges, values on edges and outside them", () => {
    const rng = mulberry32(12);
    for (let trial = 0; trial < 20; trial++) {
      const bins = 1 + Math.floor(rng.float() * 30);
      const edges = Float64Array.from({ length: bins + 1 }, () => rng.float()).sort();
      const values = Float64Array.from({ length: 3000 }, (_, i) =>
        i % 10 === 0 ? edges[Math.floor(rng.float() * (bins + 1))] : rng.float() * 1.2 - 0.1,
      );
      const got = assignBins(values, edges);
      for (let i = 0; i < values.length; i++) {
        let want = 0; // numpy.searchsorted(edges[1:-1], v): interior edges strictly below v
        for (let b = 1; b < bins; b++) if (edges[b] < values[i]) want++;
        if (got[i] !== want) expect(`${values[i]} -> ${got[i]}`).toBe(`${values[i]} -> ${want}`);
      }
    }
  });
  it("equal-mass edges are exact order statistics, with heavy ties too", () => {
    const rng = mulberry32(13);
    for (const tieShare of [0, 0.5, 0.99]) {
      const values = Float64Array.from({ length: 5001 }, () => (rng.float() < tieShare ? 0.3 : rng.float()));
      const sorted = Float64Array.from(values).sort();
      const e = massEdges(values, 10);
      // rank (n - 1) * 0.5 = 2500 exactly: the median is an order statistic
      expect(e[5]).toBe(sorted[2500]);
      expect(e[0]).toBe(sorted[0]);
      expect(e[10]).toBe(sorted[5000]);
    }
  });
});

describe("classwise and per-label views", () => {
  it("classView: an option's probability and whether it is gold; a label's probability and whether it applies", () => {
    const d = { probs: Float64Array.from([0.7, 0.2, 0.1, 0.1, 0.3, 0.6]), k: 3, gold: [0, 2] };
    expect(Array.from(classView(d, 2).p)).toEqual([0.1, 0.6]);
    expect(Array.from(classView(d, 2).y)).toEqual([0, 1]);
    const m = { probs: Float64Array.from([0.7, 0.2, 0.1, 0.9]), k: 2, labels: [1, 0, 1, 1] };
    expect(Array.from(classView(m, 1).y)).toEqual([0, 1]);
    expect(() => classView(d, 3)).toThrow(/option must be an index in 0..2/);
  });
  it("classwiseReliability gives one diagram per option", () => {
    const d = { probs: Float64Array.from([0.7, 0.2, 0.1, 0.1, 0.3, 0.6]), k: 3, gold: [0, 2] };
    const diagrams = classwiseReliability(d, { bins: 4 });
    expect(diagrams).toHaveLength(3);
    expect(diagrams[2]).toEqual(reliabilityBins(classView(d, 2), { bins: 4 }));
  });
  it("identity per label copies the probabilities and still refuses an empty fit", () => {
    const m = { probs: Float64Array.from([0.7, 0.2]), k: 2, labels: [1, 0] };
    const cal = labelCalibrator("identity");
    expect(Array.from(cal.apply(cal.fit(m), m))).toEqual([0.7, 0.2]);
  });
});

describe("smoothed reliability curve", () => {
  it("follows the true accuracy curve of a known miscalibration, with a density that integrates to 1", () => {
    const rng = mulberry32(4);
    const n = 40000;
    const p = Float64Array.from({ length: n }, () => 0.1 + 0.8 * rng.float());
    const y = Uint8Array.from(p, (q) => (rng.float() < q * q ? 1 : 0));
    const c = smoothReliability({ p, y }, { points: 101, sigma: 0.04 });
    expect(c.t).toHaveLength(101);
    for (const t of [0.3, 0.5, 0.7]) {
      const i = Math.round(t * 100);
      expect(Math.abs(c.accuracy[i] - t * t)).toBeLessThan(0.04);
    }
    let mass = 0;
    for (let i = 0; i < 100; i++) mass += (c.density[i] + c.density[i + 1]) / 2 / 100;
    expect(mass).toBeCloseTo(1, 1);
    expect(c.sigma).toBe(0.04);
    // by default the bandwidth is the smooth-ECE fixed point
    expect(smoothReliability({ p, y }).sigma).toBe(smoothEce({ p, y }).sigma);
    expect(() => smoothReliability({ p, y }, { sigma: -1 })).toThrow(/sigma must be a positive number/);
  });
});
