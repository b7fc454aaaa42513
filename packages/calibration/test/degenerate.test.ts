import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import {
  betaCalibration,
  binaryTemperatureScaling,
  buildCalibrationFile,
  calibrateQuestion,
  calibrator,
  chooseCalibrator,
  fitDiagnostics,
  histogramBinning,
  isotonicCalibrator,
  labelCalibrator,
  METHODS,
  nll,
  plattScaling,
} from "../src/index.js";
import { synthetic } from "./synthetic.js";

/** n all-correct items: the gold option carries the top confidence, uniform in (0.5, 1); the rest share the remainder. */
function allCorrect(n: number, k: number, seed: number) {
  const rng = mulberry32(seed);
  const probs = new Float64Array(n * k);
  const gold = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const top = 0.5 + 0.4995 * rng.float();
    const c = rng.below(k);
    gold[i] = c;
    for (let j = 0; j < k; j++) probs[i * k + j] = j === c ? top : (1 - top) / (k - 1);
  }
  return { probs, k, gold };
}

/** Separable multiclass data: wrong items below confidence 0.6, right items above. */
function separable(n: number, seed: number) {
  const rng = mulberry32(seed);
  const k = 2;
  const probs = new Float64Array(n * k);
  const gold = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const right = i % 4 !== 0;
    const top = right ? 0.65 + 0.34 * rng.float() : 0.5 + 0.09 * rng.float();
    probs[2 * i] = top;
    probs[2 * i + 1] = 1 - top;
    gold[i] = right ? 0 : 1;
  }
  return { probs, k, gold };
}

const sources = {
  "89 all-correct items": allCorrect(89, 3, 89),
  "200 all-correct items, two options": allCorrect(200, 2, 7),
  "separable items": separable(200, 3),
} as const;

describe("fitDiagnostics names what is wrong with fit data", () => {
  it("all correct, all wrong, one class, separable, too few items", () => {
    expect(fitDiagnostics(sources["89 all-correct items"])).toEqual([
      "all 89 fit items are correct",
      "89 fit items: fewer than histogram needs (100), isotonic needs (100)",
    ]);
    const wrong = allCorrect(150, 3, 2);
    const flipped = { ...wrong, gold: wrong.gold.map((g) => (g + 1) % 3) };
    expect(fitDiagnostics(flipped)).toEqual(["all 150 fit items are wrong"]);
    const one = synthetic({ n: 300, k: 3, temperature: 1, seed: 5 });
    expect(fitDiagnostics({ ...one, gold: new Int32Array(300).fill(2) })[0]).toBe(
      "every fit item's gold is option 2 (a single class)",
    );
    expect(fitDiagnostics(sources["separable items"])[0]).toMatch(
      /^the fit data are separable: every wrong item's confidence is at most 0\.5\d+, every correct item's at least 0\.65\d*/,
    );
    expect(fitDiagnostics(synthetic({ n: 12, k: 3, temperature: 1, seed: 3 })).at(-1)).toBe(
      "12 fit items: fewer than platt needs (20), vector needs (30), beta needs (30), histogram needs (100), isotonic needs (100)",
    );
    expect(fitDiagnostics(synthetic({ n: 500, k: 3, temperature: 0.7, seed: 3 }))).toEqual([]);
  });
  it("multi-label: a label that always or never applies, or is separable by its probability", () => {
    const n = 120;
    const probs = new Float64Array(n * 3);
    const labels = new Uint8Array(n * 3);
    const rng = mulberry32(4);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < 3; j++) probs[i * 3 + j] = rng.float();
      labels[i * 3] = 1; // always applies
      labels[i * 3 + 1] = probs[i * 3 + 1] > 0.5 ? 1 : 0; // separable
      labels[i * 3 + 2] = rng.float() < probs[i * 3 + 2] ? 1 : 0; // ordinary
    }
    const found = fitDiagnostics({ probs, k: 3, labels });
    expect(found[0]).toBe("label 0: all 120 fit items are positive");
    expect(found[1]).toMatch(/^label 1: the fit data are separable/);
    expect(found.some((f) => f.startsWith("label 2"))).toBe(false);
  });
});

describe("separable and one-class fit data never collapse a calibrator", () => {
  for (const [name, data] of Object.entries(sources)) {
    for (const method of METHODS) {
      it(`${method} on ${name}: finite params, a warning, T at or above its floor, no probability at 0 or 1`, () => {
        const cal = calibrator(method);
        const params = cal.fit(data);
        const text = JSON.stringify(params);
        // every number in the params is finite (JSON would write null for NaN or Infinity)
        expect(text).not.toMatch(/null/);
        for (const t of text.match(/"temperature":[^,}]+/g) ?? [])
          expect(Number(t.split(":")[1])).toBeGreaterThanOrEqual(0.05);
        // outputs stay inside [1e-6, 1 - 1e-6] (one-vs-rest rows renormalised: a little below 1e-6): a mistake costs at
        // most about 16 nats of log-loss, never infinity
        const q = cal.apply(params, data);
        for (const v of q) {
          expect(v).toBeGreaterThan(1e-7);
          expect(v).toBeLessThan(1 - 1e-7);
        }
        // the collapse of unsmoothed maximum likelihood: NLL 0.0000 on the fit split
        if (method !== "identity") {
          expect(nll({ ...data, probs: q })).toBeGreaterThan(1e-3);
          expect(text, "a warning travels with the params").toMatch(/degenerate fit data/);
        }
      });
    }
  }

  it("binary fits on all-positive outcomes stay inside Platt's targets", () => {
    const rng = mulberry32(1);
    const p = Array.from({ length: 89 }, () => 0.5 + 0.49 * rng.float());
    const y = new Array(89).fill(1);
    const hi = 90 / 91; // (N+ + 1) / (N+ + 2)
    for (const cal of [plattScaling(), betaCalibration(), isotonicCalibrator(), histogramBinning()]) {
      const params = cal.fit({ p, y } as never);
      const q = cal.apply(params as never, p);
      for (const v of q) expect(v).toBeLessThanOrEqual(hi + 1e-12);
      expect((params as { warnings?: string[] }).warnings?.[0]).toMatch(/^every outcome is 1 \(89 items\)/);
    }
    // Platt: a flat map at exactly the positive target (a = 0, b = logit(90 / 91))
    const platt = plattScaling().fit({ p, y });
    expect(Math.abs(platt.a)).toBeLessThan(1e-9);
    expect(platt.b).toBeCloseTo(Math.log(90), 9);
    // binary temperature: logits all positive and all outcomes 1; T stops at its floor with a warning
    const t = binaryTemperatureScaling().fit({ p, y });
    expect(t.temperature).toBeGreaterThanOrEqual(0.05);
    expect(t.warnings?.join(" ")).toMatch(/every outcome is 1/);
  });

  it("per-label fits on a label that always applies", () => {
    const n = 150;
    const rng = mulberry32(2);
    const probs = new Float64Array(n * 2);
    const labels = new Uint8Array(n * 2);
    for (let i = 0; i < n; i++) {
      probs[2 * i] = 0.5 + 0.5 * rng.float();
      labels[2 * i] = 1;
      probs[2 * i + 1] = rng.float();
      labels[2 * i + 1] = rng.float() < probs[2 * i + 1] ? 1 : 0;
    }
    for (const m of METHODS.filter((x) => x !== "vector" && x !== "identity")) {
      const cal = labelCalibrator(m);
      const params = cal.fit({ probs, k: 2, labels });
      expect(JSON.stringify(params), m).toMatch(/every outcome is 1 \(150 items\)/);
      const q = cal.apply(params, { probs, k: 2 });
      for (let i = 0; i < n; i++) expect(q[2 * i], m).toBeLessThanOrEqual(1 - 1e-6);
    }
  });
});

describe("the chooser and the file on degenerate fit data", () => {
  it("89 all-correct items with confidence in (0.5, 1): identity, verdict degenerate, a warning", () => {
    const fit = sources["89 all-correct items"];
    const r = chooseCalibrator(fit, { resamples: 200 });
    expect(r.winner).toBe("identity");
    expect(r.verdict).toBe("degenerate");
    expect(r.warnings[0]).toBe("all 89 fit items are correct");
    expect(r.note).toMatch(/^identity is kept: the fit data are degenerate \(all 89 fit items are correct\)/);
    expect(r.candidates.filter((c) => c.accepted).map((c) => c.method)).toEqual(["identity"]);
    // the scaling fits were still tried (and warn), isotonic and histogram need more items
    expect(r.candidates.find((c) => c.method === "temperature")!.heldOut).not.toBeNull();
    expect(r.candidates.find((c) => c.method === "isotonic")!.error).toMatch(
      /not tried: isotonic needs at least 100 fit items, the fit split has 89/,
    );
  });

  it("the warning reaches the calibration file, also when a method is forced", () => {
    const fit = sources["89 all-correct items"];
    const evalSplit = allCorrect(60, 3, 90);
    const auto = calibrateQuestion(fit, evalSplit, {
      kind: "choice",
      options: ["a", "b", "c"],
      resamples: 100,
    });
    expect(auto.method).toBe("identity");
    expect(auto.selection?.verdict).toBe("degenerate");
    expect(auto.warnings?.[0]).toBe("all 89 fit items are correct");
    const forced = calibrateQuestion(fit, evalSplit, {
      kind: "choice",
      options: ["a", "b", "c"],
      method: "temperature",
      resamples: 100,
    });
    expect(forced.method).toBe("temperature");
    expect(forced.selection?.verdict).toBe("forced");
    expect(forced.warnings).toContain("all 89 fit items are correct");
    expect((forced.params as { temperature: number }).temperature).toBeGreaterThanOrEqual(0.05);
    const file = buildCalibrationFile({
      source: {
        fingerprint: "decision|http://127.0.0.1:8009/v1/decision|m",
        endpoint: "http://127.0.0.1:8009/v1/decision",
        model: "m",
        served_by: ["m"],
        dataset: { name: "d", sha256: "0".repeat(64) },
        fit_split: "calibration",
        eval_split: "test",
      },
      questions: { auto, forced },
    });
    expect(file.questions.forced.warnings).toContain("all 89 fit items are correct");
    // indices become the question's option names
    const one = synthetic({ n: 300, k: 3, temperature: 1, seed: 5 });
    const single = calibrateQuestion({ ...one, gold: new Int32Array(300).fill(2) }, evalSplit, {
      kind: "choice",
      options: ["a", "b", "c"],
      resamples: 50,
    });
    expect(single.warnings?.[0]).toBe("every fit item's gold is option c (a single class)");
    const n = 150;
    const rng = mulberry32(6);
    const probs = new Float64Array(n * 2);
    const labels = new Uint8Array(n * 2);
    for (let i = 0; i < n; i++) {
      probs[2 * i] = 0.3 + 0.7 * rng.float();
      labels[2 * i] = 1;
      probs[2 * i + 1] = rng.float();
      labels[2 * i + 1] = rng.float() < probs[2 * i + 1] ? 1 : 0;
    }
    const multi = calibrateQuestion({ probs, k: 2, labels }, null, {
      kind: "multi",
      options: ["urgent", "spam"],
      resamples: 50,
    });
    expect(multi.method).toBe("identity");
    expect(multi.selection?.verdict).toBe("degenerate");
    expect(multi.warnings?.[0]).toBe("label urgent: all 150 fit items are positive");
  });
});
