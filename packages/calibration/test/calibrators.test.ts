import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import {
  accuracy,
  argmax,
  betaCalibration,
  binaryTemperatureScaling,
  calibrator,
  chooseCalibrator,
  crossFit,
  ece,
  histogramBinning,
  identityCalibrator,
  isotonicCalibrator,
  labelCalibrator,
  METHODS,
  NOTHING_LEARNED,
  nll,
  oneVsRest,
  perLabel,
  plattScaling,
  SIMPLICITY_ORDER,
  temperatureScaling,
  topLabel,
  vectorScaling,
} from "../src/index.js";
import { synthetic } from "./synthetic.js";

const emptyMulticlass = { probs: new Float64Array(0), k: 3, gold: [] };
const emptyBinary = { p: [], y: [] };
const emptyMulti = { probs: new Float64Array(0), k: 2, labels: [] };

function binaryData(n: number, seed: number, truth: (q: number) => number) {
  const rng = mulberry32(seed);
  const p = Float64Array.from({ length: n }, () => rng.float());
  const y = Uint8Array.from(p, (q) => (rng.float() < truth(q) ? 1 : 0));
  return { p, y };
}

describe("every fit on nothing usable throws the one message", () => {
  it("multiclass, binary and multi-label fits", () => {
    for (const m of METHODS) expect(() => calibrator(m).fit(emptyMulticlass), m).toThrow(NOTHING_LEARNED);
    for (const m of METHODS.filter((x) => x !== "vector")) {
      expect(() => labelCalibrator(m).fit(emptyMulti), m).toThrow(NOTHING_LEARNED);
    }
    for (const c of [
      plattScaling(),
      isotonicCalibrator(),
      histogramBinning(),
      betaCalibration(),
      binaryTemperatureScaling(),
    ]) {
      expect(() => c.fit(emptyBinary), c.name).toThrow(
        /^the model gave no usable output and nothing was learned$/,
      );
    }
    expect(() => crossFit(temperatureScaling(), emptyMulticlass)).toThrow(NOTHING_LEARNED);
    expect(() => chooseCalibrator(emptyMulticlass)).toThrow(NOTHING_LEARNED);
  });
});

describe("params are plain JSON", () => {
  it("every method's params survive a JSON round trip and apply the same", () => {
    const d = synthetic({ n: 600, k: 3, temperature: 0.6, seed: 4 });
    for (const m of METHODS) {
      const cal = calibrator(m);
      const params = cal.fit(d);
      const copy = JSON.parse(JSON.stringify(params));
      expect(copy, m).toEqual(params);
      expect(Array.from(cal.apply(copy, d)), m).toEqual(Array.from(cal.apply(params, d)));
    }
  });
});

/**
 * The temperature minimising the cross-entropy to the smoothed targets ((N_c + 1) / (N_c + 2) on gold option c, the
 * others sharing 1 / (N_c + 2)) by an independent route: plain Math.log / Math.exp, rows centred on their maximum, the
 * sign of the derivative in 1/T bisected in log(1/T) to the last bit.
 */
function exactTemperature(d: { probs: Float64Array; k: number; gold: ArrayLike<number> }): number {
  const { probs, k, gold } = d;
  const n = gold.length;
  const l = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    let mx = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j++) mx = Math.max(mx, Math.log(Math.max(probs[i * k + j], 1e-6)));
    for (let j = 0; j < k; j++) l[i * k + j] = Math.log(Math.max(probs[i * k + j], 1e-6)) - mx;
  }
  const counts = new Array<number>(k).fill(0);
  for (let i = 0; i < n; i++) counts[gold[i]]++;
  const slope = (beta: number) => {
    let s = 0;
    for (let i = 0; i < n; i++) {
      let z = 0;
      let m = 0;
      let target = 0;
      const c = gold[i];
      for (let j = 0; j < k; j++) {
        const e = Math.exp(beta * l[i * k + j]);
        z += e;
        m += e * l[i * k + j];
        const t = j === c ? (counts[c] + 1) / (counts[c] + 2) : 1 / ((counts[c] + 2) * (k - 1));
        target += t * l[i * k + j];
      }
      s += m / z - target;
    }
    return s;
  };
  let lo = Math.log(1e-3);
  let hi = Math.log(20);
  while (hi - lo > 1e-15 * Math.max(1, Math.abs(lo))) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (slope(Math.exp(mid)) < 0) lo = mid;
    else hi = mid;
  }
  return 1 / Math.exp((lo + hi) / 2);
}

describe("temperature scaling", () => {
  it("recovers the temperature the data were generated with", () => {
    // reported = softmax(z / 0.5): overconfident by 2x; the fitted T undoes it, T ≈ 1 / 0.5 = 2
    const d = synthetic({ n: 40000, k: 5, temperature: 0.5, seed: 21 });
    const { temperature } = temperatureScaling().fit(d);
    expect(temperature).toBeGreaterThan(1.9);
    expect(temperature).toBeLessThan(2.1);
    const under = synthetic({ n: 40000, k: 5, temperature: 2, seed: 22 });
    expect(temperatureScaling().fit(under).temperature).toBeCloseTo(0.5, 1);
  });
  it("never moves the argmax, lowers NLL and ECE", () => {
    const d = synthetic({ n: 5000, k: 4, temperature: 0.5, seed: 2 });
    const ts = temperatureScaling();
    const q = { ...d, probs: ts.apply(ts.fit(d), d) };
    expect(Array.from(argmax(q))).toEqual(Array.from(argmax(d)));
    expect(nll(q)).toBeLessThan(nll(d));
    expect(ece(topLabel(q))).toBeLessThan(ece(topLabel(d)) / 3);
  });
  it("finds the smoothed-target minimum to machine precision up to 4000 items and to 1e-6 beyond", () => {
    // beyond 4000 items: a warm start on a sample, then one pass over all rows (logs and exps on the fly); the last
    // case needs T near its floor (1 / T about 10)
    const cases: [number, number, number, number][] = [
      [3000, 4, 0.6, 1e-12],
      [4000, 10, 2.5, 1e-12],
      [20000, 4, 0.6, 1e-6],
      [30000, 2, 1.7, 1e-6],
      [20000, 3, 10, 1e-6],
    ];
    for (const [n, k, temperature, tol] of cases) {
      const d = synthetic({ n, k, temperature, seed: n + k });
      const fitted = temperatureScaling().fit(d).temperature;
      const exact = exactTemperature(d);
      expect(Math.abs(fitted / exact - 1), `n ${n}, k ${k}, T ${temperature}`).toBeLessThanOrEqual(tol);
    }
  });
  it("calibrated data keep T ≈ 1; the NLL is flat on uniform rows", () => {
    expect(
      temperatureScaling().fit(synthetic({ n: 40000, k: 3, temperature: 1, seed: 5 })).temperature,
    ).toBeCloseTo(1, 1);
    const flat = temperatureScaling().fit({
      probs: Float64Array.from([0.5, 0.5, 0.5, 0.5]),
      k: 2,
      gold: [0, 1],
    });
    expect(flat.temperature).toBe(1);
    expect(flat.warnings?.[0]).toMatch(/does not depend on T/);
  });
});

describe("vector scaling", () => {
  it("recovers an option bias and can move the argmax", () => {
    // reported probabilities favour option 0 by e^1; gold follows the unbiased ones
    const base = synthetic({ n: 30000, k: 3, temperature: 1, seed: 9 });
    const probs = Float64Array.from(base.probs);
    for (let i = 0; i < base.gold.length; i++) {
      const r = probs.subarray(i * 3, i * 3 + 3);
      r[0] *= Math.E;
      const s = r[0] + r[1] + r[2];
      for (let j = 0; j < 3; j++) r[j] /= s;
    }
    const d = { ...base, probs };
    const vs = vectorScaling();
    const params = vs.fit(d);
    expect(params.temperature).toBeCloseTo(1, 1);
    expect(params.bias[0]).toBe(0);
    expect(params.bias[1]).toBeCloseTo(1, 1); // relative to option 0: +1 undoes the e^1
    expect(params.bias[2]).toBeCloseTo(1, 1);
    const q = { ...d, probs: vs.apply(params, d) };
    expect(accuracy(q)).toBeGreaterThan(accuracy(d));
  });
});

describe("binary calibrators", () => {
  it("Platt recovers a known sigmoid", () => {
    // truth: P(y = 1) = sigmoid(2 logit(p) - 0.5)
    const sig = (z: number) => 1 / (1 + Math.exp(-z));
    const d = binaryData(60000, 3, (q) => sig(2 * Math.log(q / (1 - q)) - 0.5));
    const params = plattScaling().fit(d);
    expect(params.a).toBeCloseTo(2, 1);
    expect(params.b).toBeCloseTo(-0.5, 1);
  });
  it("beta calibration recovers known a, b, c and clamps a negative slope", () => {
    const sig = (z: number) => 1 / (1 + Math.exp(-z));
    const d = binaryData(80000, 4, (q) => sig(1.5 * Math.log(q) - 0.7 * Math.log(1 - q) + 0.3));
    const params = betaCalibration().fit(d);
    expect(params.a).toBeCloseTo(1.5, 1);
    expect(params.b).toBeCloseTo(0.7, 1);
    expect(params.c).toBeCloseTo(0.3, 1);
    // decreasing truth in ln p: a refitted at 0
    const inv = betaCalibration().fit(binaryData(5000, 5, (q) => 1 - q));
    expect(inv.a === 0 || inv.b === 0).toBe(true);
  });
  it("isotonic is monotone, exact on a hand example, and warns under 1000 items", () => {
    const iso = isotonicCalibrator();
    const params = iso.fit({ p: [0.1, 0.2, 0.3, 0.4], y: [0, 1, 0, 1] });
    // PAV pools .2 and .3 into 0.5
    expect(params.x).toEqual([0.1, 0.2, 0.3, 0.4]);
    // PAV gives 0, .5, .5, 1, kept inside Platt's targets [1 / (2 + 2), 3 / (2 + 2)]
    expect(params.y).toEqual([0.25, 0.5, 0.5, 0.75]);
    const q = iso.apply(params, [0, 0.15, 0.25, 0.35, 1]);
    for (const [i, v] of [0.25, 0.375, 0.5, 0.625, 0.75].entries()) expect(q[i]).toBeCloseTo(v, 15);
    expect(params.warnings?.at(-1)).toMatch(/4 items \(fewer than about 1000\)/);
    expect(iso.fit(binaryData(1500, 1, (q) => q)).warnings).toBeUndefined();
  });
  it("histogram binning maps equal-mass bins to their outcome rate", () => {
    const h = histogramBinning({ bins: 2 });
    const params = h.fit({ p: [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], y: [0, 0, 1, 1, 1, 0] });
    expect(params.values).toEqual([1 / 3, 2 / 3]);
    expect(Array.from(h.apply(params, [0.05, 0.5, 0.95]))).toEqual([1 / 3, 1 / 3, 2 / 3]);
  });
  it("binary temperature recovers 1 / scale of the logit", () => {
    const sig = (z: number) => 1 / (1 + Math.exp(-z));
    const d = binaryData(60000, 6, (q) => sig(0.5 * Math.log(q / (1 - q))));
    expect(binaryTemperatureScaling().fit(d).temperature).toBeCloseTo(2, 1);
  });
});

describe("one-vs-rest and per-label", () => {
  it("two options: calibrates option 1 and sets option 0 to the rest", () => {
    const d = {
      probs: Float64Array.from([0.9, 0.1, 0.2, 0.8, 0.6, 0.4, 0.3, 0.7]),
      k: 2,
      gold: [0, 1, 1, 1],
    };
    const c = oneVsRest(isotonicCalibrator());
    const params = c.fit(d);
    expect("positive" in params).toBe(true);
    const q = c.apply(params, d);
    for (let i = 0; i < 4; i++) expect(q[2 * i] + q[2 * i + 1]).toBeCloseTo(1, 15);
  });
  it("more options: rows renormalised", () => {
    const d = synthetic({ n: 800, k: 4, temperature: 0.7, seed: 7 });
    const c = oneVsRest(plattScaling());
    const q = c.apply(c.fit(d), d);
    for (let i = 0; i < 800; i++)
      expect(q[4 * i] + q[4 * i + 1] + q[4 * i + 2] + q[4 * i + 3]).toBeCloseTo(1, 12);
    expect(() => c.apply(c.fit(d), { probs: new Float64Array(6), k: 3 })).toThrow(
      /params hold 4 options, the data have 3/,
    );
  });
  it("per-label: each label calibrated on its own", () => {
    const rng = mulberry32(3);
    const n = 2000;
    const probs = new Float64Array(n * 2);
    const labels = new Uint8Array(n * 2);
    for (let i = 0; i < n; i++) {
      const a = rng.float();
      const b = rng.float();
      probs[2 * i] = a;
      probs[2 * i + 1] = b;
      labels[2 * i] = rng.float() < a ? 1 : 0; // calibrated
      labels[2 * i + 1] = rng.float() < b * b ? 1 : 0; // overconfident
    }
    const pl = perLabel(plattScaling());
    const params = pl.fit({ probs, k: 2, labels });
    expect(params.labels).toHaveLength(2);
    expect(params.labels[0].a).toBeCloseTo(1, 0);
    expect(params.labels[1].a).toBeGreaterThan(1.15);
    expect(() => labelCalibrator("vector")).toThrow(/no per-label form/);
  });
  it("identity leaves probabilities unchanged", () => {
    const d = synthetic({ n: 10, k: 3, temperature: 1, seed: 1 });
    const id = identityCalibrator();
    expect(Array.from(id.apply(id.fit(d), d))).toEqual(Array.from(d.probs));
  });
});

describe("cross-fitting and choosing", () => {
  it("crossFit calibrates every item with params fitted without its fold", () => {
    const d = synthetic({ n: 1000, k: 3, temperature: 0.5, seed: 12 });
    const r = crossFit(temperatureScaling(), d, { folds: 4, seed: 1 });
    expect(r.params).toHaveLength(4);
    const sizes = [0, 0, 0, 0];
    for (const f of r.folds) sizes[f]++;
    expect(sizes).toEqual([250, 250, 250, 250]);
    // item i's row equals its fold's params applied to it
    const ts = temperatureScaling();
    const i = 17;
    const row = ts.apply(r.params[r.folds[i]], { probs: d.probs.subarray(i * 3, i * 3 + 3), k: 3 });
    expect(Array.from(r.probs.subarray(i * 3, i * 3 + 3))).toEqual(Array.from(row));
    expect(() => crossFit(temperatureScaling(), synthetic({ n: 3, k: 3, temperature: 1, seed: 1 }))).toThrow(
      /3 items cannot be split into 5 folds/,
    );
  });
  it("chooseCalibrator prefers a fitted calibrator on overconfident data and reports every candidate", () => {
    const fit = synthetic({ n: 3000, k: 3, temperature: 0.4, seed: 31 });
    const selection = synthetic({ n: 3000, k: 3, temperature: 0.4, seed: 32 });
    const r = chooseCalibrator(fit, { selection, resamples: 100 });
    expect(r.heldOut).toBe("selection");
    expect(r.folds).toBeNull();
    expect(r.winner).not.toBe("identity");
    expect(r.candidates.map((c) => c.method)).toEqual([...SIMPLICITY_ORDER]);
    const identity = r.candidates[0];
    for (const v of identity.delta!.nll) expect(Math.abs(v)).toBeLessThan(1e-12);
    const best = r.candidates.find((c) => c.method === r.winner)!;
    expect(best.accepted).toBe(true);
    expect(best.heldOut!.nll[0]).toBeLessThan(identity.heldOut!.nll[0]);
    expect(best.delta!.nll[2]).toBeLessThan(0); // the whole interval of the improvement is below 0
    for (const c of r.candidates) {
      expect(c.error).toBeNull();
      expect(c.heldOut!.nll[1]).toBeLessThanOrEqual(c.heldOut!.nll[0]);
    }
    expect(() => chooseCalibrator(fit, { eval: selection } as never)).toThrow(
      /the eval option is removed.*pass a separate selection split as `selection`/,
    );
    expect(() => chooseCalibrator(fit, { selection: fit })).toThrow(/the selection split is the fit split/);
  });
  it("chooseCalibrator keeps identity on calibrated data (cross-fitted) within noise", () => {
    const fit = synthetic({ n: 2000, k: 3, temperature: 1, seed: 41 });
    const r = chooseCalibrator(fit, { candidates: ["temperature"], resamples: 100, criterion: "brier" });
    expect(r.heldOut).toBe("cross-fit");
    expect(r.folds).toBe(5);
    expect(r.candidates).toHaveLength(2);
    const t = r.candidates[1];
    // no real gain: the paired difference's interval contains 0
    expect(t.delta!.brier[1]).toBeLessThanOrEqual(1e-4);
    expect(t.delta!.brier[2]).toBeGreaterThanOrEqual(-1e-4);
  });
});
