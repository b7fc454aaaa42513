import { describe, expect, it } from "vitest";
import { bootstrap, pairedBootstrap, subset } from "../src/bootstrap/bootstrap.js";
import { classwiseItems, classwiseReplicates, classwiseScratch } from "../src/bootstrap/classwise.js";
import { bootstrapRuns } from "../src/bootstrap/engine.js";
import { drawCounts, Stream } from "../src/bootstrap/multinomial.js";
import { percentileInterval } from "../src/bootstrap/percentile.js";
import { mulberry32 } from "../src/bootstrap/random.js";
import { debiasedCalibrationError } from "../src/metrics/debiased.js";
import { classwiseEce, ece, mce } from "../src/metrics/ece.js";
import { runItems } from "../src/report/items.js";
import { CALIBRATION_ERRORS, calibrationReport, compareRuns } from "../src/report/report.js";
import { argsortUnit } from "../src/sort.js";
import type { Labelled, MultiLabel } from "../src/types.js";
import { synthetic } from "./synthetic.js";

describe("mulberry32", () => {
  it("is deterministic per seed and uniform enough", () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 5 }, () => a.u32());
    expect(Array.from({ length: 5 }, () => b.u32())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.u32())).not.toEqual(xs);
    const r = mulberry32(1);
    const hist = new Array(10).fill(0);
    for (let i = 0; i < 100000; i++) hist[r.below(10)]++;
    for (const h of hist) expect(Math.abs(h - 10000)).toBeLessThan(500);
  });
});

describe("exact multinomial counts", () => {
  it("every resample has exactly N draws, and counts follow Binomial(N, 1/N) ≈ Poisson(1)", () => {
    const n = 5000;
    const counts = new Uint32Array(n);
    const rng = new Stream(9);
    const aux = new Stream(10);
    const freq = new Array(8).fill(0);
    for (let r = 0; r < 10; r++) {
      drawCounts(counts, rng, aux);
      for (let j = 0; j < 4; j++) {
        let sum = 0;
        for (let e = 0; e < n; e++) {
          const c = (counts[e] >>> (8 * j)) & 255;
          sum += c;
          freq[Math.min(7, c)]++;
        }
        expect(sum).toBe(n);
      }
    }
    const total = 40 * n;
    // P(0) = P(1) = e^-1, P(2) = e^-1 / 2, P(3) = e^-1 / 6 (binomial with N = 5000 is within 1e-4 of these)
    expect(freq[0] / total).toBeCloseTo(Math.exp(-1), 2);
    expect(freq[1] / total).toBeCloseTo(Math.exp(-1), 2);
    expect(freq[2] / total).toBeCloseTo(Math.exp(-1) / 2, 2);
    expect(freq[3] / total).toBeCloseTo(Math.exp(-1) / 6, 2);
  });
});

describe("the fast bootstrap engine", () => {
  it("each replicate equals the metrics recomputed on the expanded resample", () => {
    const d = synthetic({ n: 700, k: 4, temperature: 1.6, seed: 3 });
    const items = runItems(d, "test");
    const expanded: Int32Array[] = [];
    const reps = bootstrapRuns([items], 10, 7, 5, (counts) => {
      for (const shift of [0, 8, 16, 24]) {
        const idx: number[] = [];
        for (let e = 0; e < counts.length; e++)
          for (let c = (counts[e] >>> shift) & 255; c > 0; c--) idx.push(e);
        expanded.push(Int32Array.from(idx));
      }
    });
    // counts are indexed in the engine's order: items sorted by confidence (stable)
    const order = Array.from(items.conf.keys()).sort((a, b) => items.conf[a] - items.conf[b] || a - b);
    expect(expanded).toHaveLength(8); // two passes of four packed resamples, the last one unused
    for (let r = 0; r < 7; r++) {
      const idx = Int32Array.from(expanded[r], (e) => order[e]);
      expect(idx.length).toBe(700);
      const top = subset({ p: items.conf, y: items.correct }, idx);
      let acc = 0;
      let nll = 0;
      let brier = 0;
      for (const i of idx) {
        acc += items.correct[i];
        nll += items.nll[i];
        brier += items.brier[i];
      }
      expect(reps[0].accuracy[r]).toBeCloseTo(acc / 700, 12);
      expect(reps[0].nll[r]).toBeCloseTo(nll / 700, 12);
      expect(reps[0].brier[r]).toBeCloseTo(brier / 700, 12);
      expect(reps[0].ece[r]).toBeCloseTo(ece(top, { bins: 10 }), 12);
      expect(reps[0].mce[r]).toBeCloseTo(mce(top, { bins: 10 }), 12);
      expect(reps[0].eceMass[r]).toBeCloseTo(ece(top, { bins: 10, binning: "mass" }), 12);
      expect(reps[0].mceMass[r]).toBeCloseTo(mce(top, { bins: 10, binning: "mass" }), 12);
      const l2 = reps[0].debiased[r];
      expect(Math.sqrt(Math.max(0, l2))).toBeCloseTo(debiasedCalibrationError(top, { bins: 10 }), 12);
    }
  });

  it("classwise replicates equal the classwise ECE of the expanded resample (multiclass and multi-label)", () => {
    const multi = synthetic({ n: 500, k: 3, temperature: 1.3, seed: 8 });
    const labels = new Uint8Array(500 * 3);
    for (let i = 0; i < labels.length; i++) labels[i] = multi.probs[i] > 0.3 ? 1 : 0;
    labels[4] = 1 - labels[4];
    const cases: (Labelled | MultiLabel)[] = [multi, { probs: multi.probs, k: 3, labels }];
    for (const d of cases) {
      const items = runItems(d, "test");
      const order = argsortUnit(items.conf);
      const isMulti = (d as MultiLabel).labels !== undefined;
      const cw = classwiseItems(
        d.probs,
        3,
        isMulti ? null : (d as Labelled).gold,
        isMulti ? (d as MultiLabel).labels : null,
        order,
        12,
      );
      const out = new Float64Array(10);
      const scratch = classwiseScratch(cw, 500);
      const expanded: Int32Array[] = [];
      bootstrapRuns(
        [items],
        12,
        10, // three groups of four: the first two read together, the third alone
        9,
        (counts, first) => {
          classwiseReplicates(cw, counts, first, out, scratch);
          for (const shift of [0, 8, 16, 24]) {
            const idx: number[] = [];
            for (let e = 0; e < counts.length; e++)
              for (let c = (counts[e] >>> shift) & 255; c > 0; c--) idx.push(order[e]);
            expanded.push(Int32Array.from(idx));
          }
        },
        order,
      );
      expect(expanded).toHaveLength(12);
      for (let r = 0; r < 10; r++) {
        // the layout keeps residuals in single precision: within 1e-7 here
        expect(out[r]).toBeCloseTo(classwiseEce(subset(d, expanded[r]), { bins: 12 }), 7);
      }
    }
  });

  it("runs on the same items share their resamples (paired)", () => {
    const a = runItems(synthetic({ n: 400, k: 3, temperature: 1, seed: 1 }), "t");
    const b = { ...a, nll: a.nll.map((v) => v + 0.5) };
    const [ra, rb] = bootstrapRuns([a, b], 15, 50, 2);
    for (let r = 0; r < 50; r++) {
      expect(rb.nll[r] - ra.nll[r]).toBeCloseTo(0.5, 12);
      expect(rb.ece[r]).toBeCloseTo(ra.ece[r], 12);
    }
  });
});

describe("generic bootstrap", () => {
  it("is seeded, and its interval covers the point for a mean", () => {
    const xs = Float64Array.from({ length: 300 }, (_, i) => Math.sin(i) + 1);
    const mean = (idx: Int32Array) => idx.reduce((s, i) => s + xs[i], 0) / idx.length;
    const a = bootstrap(xs.length, mean, { resamples: 400, seed: 7 });
    const b = bootstrap(xs.length, mean, { resamples: 400, seed: 7 });
    const c = bootstrap(xs.length, mean, { resamples: 400, seed: 8 });
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a[1]).toBeLessThan(a[0]);
    expect(a[2]).toBeGreaterThan(a[0]);
    // the standard error of a mean is sd / sqrt(n): the 95% interval is about +- 1.96 of it
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - a[0]) ** 2, 0) / xs.length);
    expect((a[2] - a[1]) / 2).toBeCloseTo((1.96 * sd) / Math.sqrt(xs.length), 1);
  });

  it("paired differences cancel the shared noise", () => {
    const xs = Float64Array.from({ length: 200 }, (_, i) => Math.cos(i * 1.7) * 10);
    const a = (idx: Int32Array) => idx.reduce((s, i) => s + xs[i], 0) / idx.length;
    const b = (idx: Int32Array) => idx.reduce((s, i) => s + xs[i] - 1, 0) / idx.length;
    const d = pairedBootstrap(xs.length, a, b, { resamples: 200 });
    expect(d[0]).toBeCloseTo(1, 12);
    expect(d[1]).toBeCloseTo(1, 12);
    expect(d[2]).toBeCloseTo(1, 12);
  });

  it("percentile intervals interpolate like numpy and drop non-finite replicates", () => {
    expect(percentileInterval([1, 2, 3, 4, 5], 0.5)).toEqual([2, 4]);
    const [lo, hi] = percentileInterval([Number.NaN, 0, 10], 0.8);
    expect(lo).toBeCloseTo(1, 12);
    expect(hi).toBeCloseTo(9, 12);
  });

  it("rejects bad options with a clear message", () => {
    expect(() => bootstrap(10, () => 0, { resamples: 0 })).toThrow(/resamples must be a positive integer/);
    expect(() => bootstrap(10, () => 0, { level: 1.5 })).toThrow(/level must be in \(0, 1\)/);
    expect(() => bootstrap(0, () => 0)).toThrow(/n must be a positive item count/);
  });
});

describe("calibration report", () => {
  it("reports every headline metric with an interval around its point", () => {
    const d = synthetic({ n: 3000, k: 5, temperature: 1.8, seed: 11 });
    const r = calibrationReport(d, { resamples: 200 });
    for (const m of ["accuracy", "nll", "brier", "ece", "eceMass", "mce", "mceMass"] as const) {
      const [p, lo, hi] = r[m];
      expect(lo, m).toBeLessThanOrEqual(p);
      expect(hi, m).toBeGreaterThanOrEqual(p);
      expect(hi).toBeGreaterThan(lo);
    }
    for (const [m, [p, lo, hi]] of Object.entries(r.intervals)) {
      expect(lo, m).toBeLessThanOrEqual(p);
      expect(hi, m).toBeGreaterThanOrEqual(p);
      expect(hi, m).toBeGreaterThan(lo);
      expect(lo, m).toBeGreaterThanOrEqual(0);
    }
    const top = { p: runItems(d, "t").conf, y: runItems(d, "t").correct };
    // the plug-in values stay available; the headline of a calibration error is the bias-corrected point
    expect(r.plugin.ece).toBeCloseTo(ece(top), 12);
    expect(r.plugin.eceMass).toBeCloseTo(ece(top, { binning: "mass" }), 12);
    expect(r.plugin.mce).toBeCloseTo(mce(top), 12);
    expect(r.plugin.mceMass).toBeCloseTo(mce(top, { binning: "mass" }), 12);
    expect(r.plugin.classwiseEce).toBe(r.classwiseEce);
    expect(r.intervals.ece).toBe(r.ece);
    expect(r.ece[0]).toBeLessThan(r.plugin.ece);
    expect(r.mceMass[0]).not.toBe(r.mce[0]);
    expect(r.intervalMethod).toMatchObject({
      accuracy: "percentile",
      ece: "bias-bounded",
      mceMass: "bias-bounded",
    });
    expect(r.intervalMethod.debiasedCalibrationError).toBe("normal-squared");
    expect(r.intervalMethod.smoothEce).toBe("basic-debiased");
    expect(Object.keys(r.intervals)).toHaveLength(7);
    expect(r.plugin.smoothEce).toBe(r.smoothEce.ece);
    expect(r.consistency.statistic).toBe("ece");
    expect(r.consistency.resamples).toBe(200);
    expect(r.secondaryResamples).toBe(200);
    expect(r.consistency.pValue).toBeGreaterThanOrEqual(1 / 201);
    expect(r.reliability.width).toHaveLength(15);
    expect(r.reliability.mass.reduce((s, b) => s + b.count, 0)).toBe(3000);
    expect(r.kind).toBe("multiclass");
  });

  it("keeps intervals open when every outcome agrees and the resamples cannot vary", () => {
    // 20 items, all at confidence 0.9 and all right: every resample is the same, yet 20 items do not pin the error
    const probs = Float64Array.from({ length: 40 }, (_, i) => (i % 2 ? 0.1 : 0.9));
    const r = calibrationReport({ probs, k: 2, gold: new Int32Array(20) }, { resamples: 100 });
    for (const m of CALIBRATION_ERRORS.filter((e) => e !== "smoothEce")) {
      const [p, lo, hi] = r.intervals[m];
      expect(r.plugin[m], m).toBeCloseTo(0.1, 12);
      expect(hi - lo, m).toBeGreaterThan(0.04);
      expect(lo, m).toBeLessThanOrEqual(p);
      expect(hi, m).toBeGreaterThanOrEqual(p);
    }
  });

  it("compareRuns: a run against itself differs by exactly 0", () => {
    const d = synthetic({ n: 500, k: 3, temperature: 1.4, seed: 2 });
    const c = compareRuns(d, d, { resamples: 100 });
    for (const m of ["accuracy", "nll", "ece", "eceMass"] as const) {
      for (const v of c.delta[m]) expect(Math.abs(v)).toBeLessThan(1e-12);
    }
    expect(() => compareRuns(d, synthetic({ n: 10, k: 3, temperature: 1, seed: 1 }))).toThrow(/same items/);
    expect(() => calibrationReport(d, { bins: 70000 })).toThrow(
      /calibrationReport: bins must be at most 65536, got 70000/,
    );
  });
});
