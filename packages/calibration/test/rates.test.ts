import { describe, expect, it } from "vitest";
import {
  multiLabelScores,
  optionScores,
  rateCount,
  unknownAnalytics,
  unknownStats,
  wilsonInterval,
} from "../src/index.js";

// Every rate carries its counts (x of n) and a 95 % Wilson interval next to the share.

describe("rateCount", () => {
  it("is x of n with the 95 % Wilson interval; n = 0 gives [0, 1]", () => {
    expect(rateCount(1, 1)).toEqual({ x: 1, n: 1, interval: wilsonInterval(1, 1) });
    expect(rateCount(1, 1).interval[0]).toBeCloseTo(0.2065, 4);
    expect(rateCount(0, 0)).toEqual({ x: 0, n: 0, interval: [0, 1] });
  });
});

describe("Unknown rates carry n and an interval", () => {
  // 4 items: predicted Unknown on 0 and 1, gold Unknown on 1 and 2; of the answered items 2 and 3, item 2 is wrong
  const flags = { predicted: [1, 1, 0, 0], gold: [0, 1, 1, 0], correct: [0, 1, 0, 1] };
  const s = unknownStats(flags);

  it("gives each rate's numerator and denominator", () => {
    expect(s.counts.predictedRate).toMatchObject({ x: 2, n: 4 });
    expect(s.counts.goldRate).toMatchObject({ x: 2, n: 4 });
    expect(s.counts.precision).toMatchObject({ x: 1, n: 2 });
    expect(s.counts.recall).toMatchObject({ x: 1, n: 2 });
    expect(s.counts.coverage).toMatchObject({ x: 2, n: 4 });
    expect(s.counts.answeredRisk).toMatchObject({ x: 1, n: 2 });
    for (const [name, c] of Object.entries(s.counts)) {
      const share = {
        predictedRate: s.predictedRate,
        goldRate: s.goldRate,
        precision: s.precision,
        recall: s.recall,
        coverage: s.coverage,
        answeredRisk: s.answeredRisk,
      }[name];
      expect(c.x / c.n).toBeCloseTo(share as number, 15);
      expect(c.interval).toEqual(wilsonInterval(c.x, c.n));
    }
  });

  it("a precision of 100 % from one prediction reads 1 of 1 with a wide interval", () => {
    const one = unknownStats({ predicted: [1, 0, 0, 0, 0], gold: [1, 1, 0, 0, 0], correct: [1, 0, 1, 1, 1] });
    expect(one.precision).toBe(1);
    expect(one.counts.precision.x).toBe(1);
    expect(one.counts.precision.n).toBe(1);
    expect(one.counts.precision.interval[1]).toBe(1);
    expect(one.counts.precision.interval[0]).toBeLessThan(0.25);
    // recall 50 % from two gold Unknowns
    expect(one.counts.recall).toMatchObject({ x: 1, n: 2 });
    expect(one.counts.recall.interval[1] - one.counts.recall.interval[0]).toBeGreaterThan(0.8);
  });

  it("with nothing predicted Unknown, precision is 0 of 0 with the uninformative [0, 1]", () => {
    const none = unknownStats({ predicted: [0, 0, 0], gold: [1, 0, 0], correct: [0, 1, 1] });
    expect(none.counts.precision).toEqual({ x: 0, n: 0, interval: [0, 1] });
    expect(none.counts.answeredRisk).toMatchObject({ x: 1, n: 3 });
  });

  it("unknownAnalytics counts from probabilities the same way", () => {
    // option 2 is Unknown; argmax: 2, 0, 2, 1; gold: 2, 2, 0, 1
    const d = {
      probs: Float64Array.from([0.1, 0.2, 0.7, 0.6, 0.3, 0.1, 0.2, 0.2, 0.6, 0.1, 0.8, 0.1]),
      k: 3,
      gold: [2, 2, 0, 1],
    };
    const a = unknownAnalytics(d, 2);
    expect(a.counts.predictedRate).toMatchObject({ x: 2, n: 4 });
    expect(a.counts.precision).toMatchObject({ x: 1, n: 2 });
    expect(a.counts.recall).toMatchObject({ x: 1, n: 2 });
    expect(a.counts.answeredRisk).toMatchObject({ x: 1, n: 2 });
  });
});

describe("per-option and per-label precision / recall carry their n", () => {
  it("optionScores: precision of predicted, recall of support, Wilson intervals", () => {
    // argmax: 0, 0, 1, 1, 1; gold: 0, 1, 1, 1, 0
    const d = {
      probs: Float64Array.from([0.9, 0.1, 0.8, 0.2, 0.3, 0.7, 0.4, 0.6, 0.2, 0.8]),
      k: 2,
      gold: [0, 1, 1, 1, 0],
    };
    const s = optionScores(d);
    const [o0, o1] = s.options;
    expect(o0.counts.precision).toMatchObject({ x: 1, n: 2 });
    expect(o0.counts.recall).toMatchObject({ x: 1, n: 2 });
    expect(o1.counts.precision).toMatchObject({ x: 2, n: 3 });
    expect(o1.counts.recall).toMatchObject({ x: 2, n: 3 });
    for (const o of s.options) {
      expect(o.counts.precision.n).toBe(o.predicted);
      expect(o.counts.recall.n).toBe(o.support);
      expect(o.counts.precision.x / o.counts.precision.n).toBeCloseTo(o.precision, 15);
      expect(o.counts.recall.interval).toEqual(wilsonInterval(o.counts.recall.x, o.counts.recall.n));
    }
  });

  it("an option never predicted has precision 0 of 0 and [0, 1], not a bare 0 %", () => {
    const d = { probs: Float64Array.from([0.9, 0.1, 0.8, 0.2]), k: 2, gold: [0, 1] };
    const o1 = optionScores(d).options[1];
    expect(o1.precision).toBe(0);
    expect(o1.counts.precision).toEqual({ x: 0, n: 0, interval: [0, 1] });
    expect(o1.counts.recall).toMatchObject({ x: 0, n: 1 });
  });

  it("multiLabelScores: each label's counts at its threshold", () => {
    // two labels; label 0 chosen at >= 0.5: rows 0, 1; label 1 at >= 0.3: rows 0, 2
    const m = { probs: Float64Array.from([0.9, 0.4, 0.6, 0.1, 0.2, 0.35]), k: 2, labels: [1, 1, 0, 0, 1, 0] };
    const s = multiLabelScores(m, [0.5, 0.3]);
    expect(s.labels[0].counts.precision).toMatchObject({ x: 1, n: 2 });
    expect(s.labels[0].counts.recall).toMatchObject({ x: 1, n: 2 });
    expect(s.labels[1].counts.precision).toMatchObject({ x: 1, n: 2 });
    expect(s.labels[1].counts.recall).toMatchObject({ x: 1, n: 1 });
    expect(s.labels[1].counts.recall.interval[0]).toBeLessThan(0.25);
  });
});
