import { describe, expect, it } from "vitest";
import { bootstrapRuns } from "../src/bootstrap/engine.js";
import { mulberry32 } from "../src/bootstrap/random.js";
import { pairedImprovement } from "../src/calibrators/bca.js";
import {
  calibrateQuestion,
  calibrator,
  chooseCalibrator,
  crossFit,
  escalationThreshold,
  type Labelled,
  labelCalibrator,
  labelThresholds,
  multiLabelTop,
  nll,
  SIMPLICITY_ORDER,
} from "../src/index.js";
import { runItems } from "../src/report/items.js";
import { binomialDraw, f1Estimate } from "../src/thresholds/f1-interval.js";
import { synthetic } from "./synthetic.js";

/**
 * A split whose rows can only be reached through getters that log every read (of probs, gold, labels) under a name:
 * every element of a split is read through one of them.
 */
function watched<T extends { probs: Float64Array; k: number }>(data: T, name: string, log: string[]): T {
  const out = { k: data.k } as T;
  for (const key of ["probs", "gold", "labels"] as const) {
    const value = (data as Record<string, unknown>)[key];
    if (value === undefined) continue;
    Object.defineProperty(out, key, {
      enumerable: true,
      get() {
        log.push(name);
        return value;
      },
    });
  }
  return out;
}

describe("selection never reads the evaluation split", () => {
  const fit = synthetic({ n: 1200, k: 3, temperature: 0.6, seed: 101 });
  const opts = { kind: "choice" as const, options: ["a", "b", "c"], resamples: 100, targetRisk: 0.2 };

  it("every read of the evaluation split comes after every read selection makes of the fit split", () => {
    // the reads chooseCalibrator makes of the fit split, alone
    const alone: string[] = [];
    const choice = chooseCalibrator(watched(fit, "fit", alone), { resamples: 100 });
    const selectionReads = alone.length;
    expect(selectionReads).toBeGreaterThan(0);
    // the same selection inside calibrateQuestion, with an instrumented evaluation split
    const log: string[] = [];
    const evalSplit = synthetic({ n: 800, k: 3, temperature: 0.6, seed: 102 });
    const entry = calibrateQuestion(watched(fit, "fit", log), watched(evalSplit, "eval", log), opts);
    const firstEval = log.indexOf("eval");
    expect(firstEval).toBeGreaterThan(-1); // it is evaluated on, once selection is final
    const fitReadsBefore = log.slice(0, firstEval).filter((x) => x === "fit").length;
    expect(fitReadsBefore).toBeGreaterThanOrEqual(selectionReads);
    expect(entry.method).toBe(choice.winner);
    expect(entry.selection).toEqual({
      by: "cross-fit",
      folds: 5,
      criterion: "nll",
      verdict: choice.verdict,
      note: choice.note,
    });
  });

  it("the method, its params and the threshold do not depend on the evaluation split", () => {
    const calm = synthetic({ n: 800, k: 3, temperature: 1, seed: 103 });
    const wild = synthetic({ n: 800, k: 3, temperature: 0.1, seed: 104 });
    const a = calibrateQuestion(fit, calm, opts);
    const b = calibrateQuestion(fit, wild, opts);
    expect(b.method).toBe(a.method);
    expect(b.params).toEqual(a.params);
    expect(b.selection).toEqual(a.selection);
    expect(b.threshold).toEqual(a.threshold);
    expect(b.metrics!.after!.nll[0]).not.toBe(a.metrics!.after!.nll[0]); // but the metrics are the eval split's
    expect(a.metrics!.estimated_by).toBe("evaluation split");
  });

  it("the escalation threshold is chosen on the fit split's out-of-fold calibrated probabilities", () => {
    const evalSplit = synthetic({ n: 800, k: 3, temperature: 0.6, seed: 105 });
    const entry = calibrateQuestion(fit, evalSplit, { ...opts, method: "temperature" });
    const oof = crossFit(calibrator("temperature"), fit, { folds: 5, seed: 0 }).probs;
    const expected = escalationThreshold({ ...fit, probs: oof }, { targetRisk: 0.2 }).minConfidence;
    expect(entry.threshold).toEqual({
      target_risk: 0.2,
      min_confidence: expected,
      chosen_on: "fit split, out-of-fold (5-fold cross-fit)",
    });
    // not on the in-sample calibrated rows
    const inSample = calibrator("temperature").apply(entry.params as never, fit);
    expect(escalationThreshold({ ...fit, probs: inSample }, { targetRisk: 0.2 }).minConfidence).not.toBe(
      expected,
    );
  });

  it("a run with one split: cross-fit estimates, and the entry says so", () => {
    const entry = calibrateQuestion(fit, null, { ...opts, method: "temperature" });
    expect(entry.metrics!.estimated_by).toBe("cross-fit");
    expect(entry.warnings).toContain(
      "one split: the after-metrics are out-of-fold cross-fit estimates on the fit split, not untouched held-out data",
    );
    const oof = crossFit(calibrator("temperature"), fit, { folds: 5, seed: 0 }).probs;
    expect(entry.metrics!.after!.nll[0]).toBeCloseTo(nll({ ...fit, probs: oof }), 12);
    expect(entry.metrics!.before!.nll[0]).toBeCloseTo(nll(fit), 12);
    expect(() => calibrateQuestion(fit, fit, opts)).toThrow(
      /the evaluation split is the fit split; pass null/,
    );
  });

  it("a separate selection split is scored instead of cross-fitting", () => {
    const selection = synthetic({ n: 600, k: 3, temperature: 0.6, seed: 106 });
    const evalSplit = synthetic({ n: 600, k: 3, temperature: 0.6, seed: 107 });
    const entry = calibrateQuestion(fit, evalSplit, { ...opts, selection });
    expect(entry.selection?.by).toBe("selection-split");
    expect(entry.selection?.folds).toBeUndefined();
    expect(entry.selection?.note).toMatch(/selection split/);
    const choice = chooseCalibrator(fit, { selection, resamples: 100 });
    expect(choice.heldOut).toBe("selection");
    expect(entry.method).toBe(choice.winner);
    // a chooser result computed by the caller is reused as it is
    const reused = calibrateQuestion(fit, evalSplit, { ...opts, choice });
    expect(reused.selection?.note).toBe(choice.note);
    expect(reused.params).toEqual(choice.params);
  });
});

describe("the user chooses, the tool advises", () => {
  it("a forced method is honoured even when cross-fitting finds it worse than identity", () => {
    const fit = synthetic({ n: 300, k: 3, temperature: 1, seed: 201 });
    const evalSplit = synthetic({ n: 300, k: 3, temperature: 1, seed: 202 });
    const choice = chooseCalibrator(fit, { resamples: 100, candidates: ["isotonic"] });
    const iso = choice.candidates.find((c) => c.method === "isotonic")!;
    expect(iso.improvement![0]).toBeLessThan(0); // worse than identity, held out
    expect(choice.winner).toBe("identity");
    const entry = calibrateQuestion(fit, evalSplit, {
      kind: "choice",
      options: ["a", "b", "c"],
      method: "isotonic",
      choice,
      resamples: 100,
    });
    expect(entry.method).toBe("isotonic");
    expect(entry.selection).toEqual({
      by: "user",
      criterion: "nll",
      verdict: "forced",
      note: "isotonic was chosen by the user; no selection was run; auto would choose identity (identity)",
    });
    expect(entry.metrics!.after!.nll[0]).toBeGreaterThan(entry.metrics!.before!.nll[0]);
    expect(() =>
      calibrateQuestion(fit, evalSplit, {
        kind: "choice",
        options: ["a", "b", "c"],
        method: "magic" as never,
      }),
    ).toThrow(/unknown method "magic"; expected "auto" or one of identity, temperature/);
  });

  it("auto: a tiny improvement is indistinguishable, a large one is accepted", () => {
    const candidates = ["temperature", "platt", "beta"] as const;
    // slightly overconfident: the best point estimate is not significantly better than identity
    const slight = chooseCalibrator(synthetic({ n: 1500, k: 3, temperature: 0.95, seed: 1 }), {
      resamples: 300,
      candidates: [...candidates],
    });
    expect(slight.winner).toBe("identity");
    expect(slight.verdict).toBe("indistinguishable");
    expect(slight.note).toMatch(
      /^beta has the lowest held-out NLL but is indistinguishable from identity: NLL improvement 0\.\d{4} \(95 % CI -0\.\d{4} to 0\.\d{4}, paired bootstrap BCa, 5-fold cross-fit on the fit split\); the simpler identity is kept$/,
    );
    for (const c of slight.candidates.slice(1)) {
      expect(c.against).toBe("identity");
      expect(c.accepted).toBe(false);
      expect(c.improvement![1]).toBeLessThanOrEqual(0);
    }
    // strongly overconfident: temperature is accepted; platt and beta are then tested against temperature
    const strong = chooseCalibrator(synthetic({ n: 1500, k: 3, temperature: 0.4, seed: 4 }), {
      resamples: 300,
      candidates: [...candidates],
    });
    expect(strong.winner).toBe("temperature");
    const t = strong.candidates.find((c) => c.method === "temperature")!;
    expect(t.accepted).toBe(true);
    expect(t.improvement![1]).toBeGreaterThan(0);
    expect(strong.candidates.find((c) => c.method === "platt")!.against).toBe("temperature");
    expect(strong.candidates[0].accepted).toBe(false);
    // only temperature: a clear improvement
    const only = chooseCalibrator(synthetic({ n: 1500, k: 3, temperature: 0.4, seed: 4 }), {
      resamples: 300,
      candidates: ["temperature"],
    });
    expect(only.verdict).toBe("improvement");
    expect(only.note).toMatch(
      /^temperature improves on identity: NLL improvement 0\.\d{4} \(95 % CI 0\.\d{4} to/,
    );
    expect(only.candidates.map((c) => c.method)).toEqual(["identity", "temperature"]);
    expect(SIMPLICITY_ORDER).toEqual([
      "identity",
      "temperature",
      "platt",
      "vector",
      "beta",
      "histogram",
      "isotonic",
    ]);
  });
});

describe("auto on perfectly calibrated data", () => {
  it("keeps identity in at least 47 of 50 seeded runs, where the lowest point estimate would not", () => {
    let identity = 0;
    let pointWouldFit = 0;
    for (let s = 0; s < 50; s++) {
      const c = chooseCalibrator(synthetic({ n: 1000, k: 3, temperature: 1, seed: 7000 + s }), {
        resamples: 300,
        seed: s,
      });
      if (c.winner === "identity") identity++;
      const scored = c.candidates.filter((x) => x.heldOut);
      const best = scored.reduce((a, b) => (b.heldOut!.nll[0] < a.heldOut!.nll[0] ? b : a));
      if (best.method !== "identity") pointWouldFit++;
    }
    expect(identity).toBeGreaterThanOrEqual(47); // measured: 100 of 100
    expect(pointWouldFit).toBeGreaterThan(5); // measured: 27 of 100 picked a fitted method by its point alone
  }, 120_000);
});

describe("the improvement interval covers (paired bootstrap BCa of the mean difference)", () => {
  it("at least 93 % of 300 seeded trials at n = 1000 cover the true mean NLL improvement", () => {
    // two fixed maps (no fitting): identity and temperature 1.25 on data sharpened by 1 / 0.8
    const t = calibrator("temperature");
    const params = { temperature: 1.25 };
    const improvementOf = (d: Labelled) => {
      const a = runItems(d, "test");
      const b = runItems({ ...d, probs: t.apply(params, d) }, "test");
      return { a, b };
    };
    const big = synthetic({ n: 200000, k: 3, temperature: 0.8, seed: 999 });
    const truth = nll(big) - nll({ ...big, probs: t.apply(params, big) });
    expect(truth).toBeGreaterThan(0.005);
    let covered = 0;
    const trials = 300; // measured over 600 trials: BCa 94.7 %, percentile 94.2 %
    for (let s = 0; s < trials; s++) {
      const d = synthetic({ n: 1000, k: 3, temperature: 0.8, seed: 5000 + s });
      const { a, b } = improvementOf(d);
      const reps = bootstrapRuns([a, b], 15, 1000, s);
      const e = pairedImprovement(a.nll, b.nll, reps[0].nll, reps[1].nll, 0.95);
      expect(e[1]).toBeLessThanOrEqual(e[0]);
      expect(e[0]).toBeLessThanOrEqual(e[2]);
      if (e[1] <= truth && truth <= e[2]) covered++;
    }
    console.log(`paired improvement interval: coverage ${covered} / ${trials}, true improvement ${truth}`);
    expect(covered / trials).toBeGreaterThanOrEqual(0.93);
  }, 120_000);
});

describe("multi-label: label thresholds and the answered-alone share", () => {
  function multiLabel(n: number, k: number, seed: number) {
    const rng = mulberry32(seed);
    const probs = new Float64Array(n * k);
    const labels = new Uint8Array(n * k);
    for (let t = 0; t < n * k; t++) {
      const truth = rng.float();
      labels[t] = rng.float() < truth ? 1 : 0;
      probs[t] = 1 / (1 + Math.exp(-2 * Math.log(truth / (1 - truth))));
    }
    return { probs, k, labels };
  }

  it("thresholds chosen on the fit split out-of-fold, F1 and n on the evaluation split", () => {
    const fit = multiLabel(1500, 3, 11);
    const evalSplit = multiLabel(1000, 3, 12);
    const entry = calibrateQuestion(fit, evalSplit, {
      kind: "multi",
      options: ["x", "y", "z"],
      method: "platt",
      targetRisk: 0.3,
      resamples: 200,
    });
    const oof = crossFit(labelCalibrator("platt"), fit, { folds: 5, seed: 0 }).probs;
    const chosen = labelThresholds({ ...fit, probs: oof });
    const after = labelCalibrator("platt").apply(entry.params as never, evalSplit);
    expect(entry.label_thresholds).toHaveLength(3);
    entry.label_thresholds!.forEach((lt, j) => {
      expect(lt.label).toBe(["x", "y", "z"][j]);
      expect(lt.threshold).toBe(chosen[j].threshold);
      expect(lt.n).toBe(1000);
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (let i = 0; i < 1000; i++) {
        const on = after[i * 3 + j] >= lt.threshold;
        const y = evalSplit.labels[i * 3 + j] === 1;
        if (on && y) tp++;
        else if (on) fp++;
        else if (y) fn++;
      }
      expect(lt.f1[0]).toBeCloseTo((2 * tp) / (2 * tp + fp + fn), 15);
      expect(lt.f1[1]).toBeLessThan(lt.f1[0]);
      expect(lt.f1[2]).toBeGreaterThan(lt.f1[0]);
    });
    const top = multiLabelTop({ ...evalSplit, probs: after });
    const t = entry.threshold!.min_confidence!;
    let answered = 0;
    let errors = 0;
    for (let i = 0; i < 1000; i++) {
      if (top.p[i] >= t) {
        answered++;
        if (top.y[i] !== 1) errors++;
      }
    }
    expect(entry.answered!.share).toBeCloseTo(answered / 1000, 15);
    expect(entry.answered!.n).toBe(1000);
    expect(entry.answered!.error[0]).toBeCloseTo(errors / answered, 15);
  });

  it("binomial draws have the right mean and variance", () => {
    const rng = mulberry32(3);
    for (const [n, p] of [
      [1000, 0.3],
      [50, 0.02],
      [7, 0.9],
    ] as const) {
      const draws = Array.from({ length: 20000 }, () => binomialDraw(n, p, rng));
      const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
      const v = draws.reduce((a, b) => a + (b - mean) ** 2, 0) / draws.length;
      expect(Math.abs(mean - n * p)).toBeLessThan(4 * Math.sqrt((n * p * (1 - p)) / 20000));
      expect(v / (n * p * (1 - p))).toBeGreaterThan(0.95);
      expect(v / (n * p * (1 - p))).toBeLessThan(1.05);
      for (const d of draws) expect(Number.isInteger(d) && d >= 0 && d <= n).toBe(true);
    }
  });

  it("the F1 interval covers the true F1 in at least 93 % of 300 seeded trials at n = 1000", () => {
    const cells = [0.2, 0.05, 0.1, 0.65]; // TP, FP, FN, TN
    const truth = (2 * cells[0]) / (2 * cells[0] + cells[1] + cells[2]);
    const rng = mulberry32(17);
    let covered = 0;
    const trials = 300;
    for (let s = 0; s < trials; s++) {
      const c = [0, 0, 0, 0];
      for (let i = 0; i < 1000; i++) {
        let u = rng.float();
        let j = 0;
        while (j < 3 && u >= cells[j]) u -= cells[j++];
        c[j]++;
      }
      const e = f1Estimate(c[0], c[1], c[2], c[3], { resamples: 1000, seed: s, level: 0.95 });
      if (e[1] <= truth && truth <= e[2]) covered++;
    }
    console.log(`F1 interval: coverage ${covered} / ${trials}, true F1 ${truth}`);
    expect(covered / trials).toBeGreaterThanOrEqual(0.93);
  }, 60_000);
});
