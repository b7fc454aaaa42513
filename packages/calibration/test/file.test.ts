import { describe, expect, it } from "vitest";
import {
  applyCalibration,
  buildCalibrationFile,
  CALIBRATION_SCHEMA,
  type CalibrationFile,
  CalibrationFileError,
  calibrateQuestion,
  calibrationFileErrors,
  checkCalibration,
  ece,
  parseCalibrationFile,
  temperatureScaling,
  topLabel,
  validateCalibrationFile,
} from "../src/index.js";
import { synthetic } from "./synthetic.js";

const source = {
  fingerprint: "decision|http://127.0.0.1:8009/v1/decision|workbench-latest",
  endpoint: "http://127.0.0.1:8009/v1/decision",
  model: "workbench-latest",
  served_by: ["bayes-2"],
  dataset: { name: "spam-assassin", sha256: "a".repeat(64) },
  fit_split: "calibration",
  eval_split: "test",
};

const example = {
  schema: "decision-workbench/calibration@1",
  created_at: "2026-11-21T10:00:00Z",
  source,
  questions: {
    is_spam: {
      kind: "yesno",
      options: ["yes", "no"],
      method: "temperature",
      params: { temperature: 1.83 },
      threshold: { target_risk: 0.05, min_confidence: 0.91 },
      metrics: { before: { ece: [0.081, 0.072, 0.09] }, after: { ece: [0.012, 0.008, 0.017] } },
    },
  },
};

describe("validating a calibration file", () => {
  it("accepts the design document's example", () => {
    const r = validateCalibrationFile(example);
    expect(r.ok).toBe(true);
    expect(parseCalibrationFile(JSON.stringify(example)).questions.is_spam.method).toBe("temperature");
  });
  it("a missing, unknown or newer schema is a clear error", () => {
    const { schema: _, ...noSchema } = example;
    expect(calibrationFileErrors(noSchema)).toEqual([
      { path: "schema", message: `missing; expected "${CALIBRATION_SCHEMA}"` },
    ]);
    expect(
      calibrationFileErrors({ ...example, schema: "decision-workbench/calibration@2" })[0].message,
    ).toMatch(
      /"decision-workbench\/calibration@2" is a version this library cannot read; expected "decision-workbench\/calibration@1"/,
    );
    expect(calibrationFileErrors({ ...example, schema: "netcal/v3" })[0].message).toMatch(
      /is not a calibration file schema/,
    );
    expect(() => parseCalibrationFile("{not json")).toThrow(/not JSON/);
    expect(() => parseCalibrationFile([])).toThrow(CalibrationFileError);
  });
  it("every missing or malformed field is reported with its path", () => {
    const bad = JSON.parse(JSON.stringify(example));
    delete bad.source.fingerprint;
    bad.source.dataset.sha256 = "xyz";
    bad.created_at = "yesterday";
    bad.questions.is_spam.method = "magic";
    bad.questions.is_spam.threshold.min_confidence = 1.5;
    bad.questions.is_spam.metrics.after.ece = [0.5, 0.1];
    bad.questions.is_spam.extra = true;
    const errors = calibrationFileErrors(bad);
    const paths = errors.map((e) => e.path);
    expect(paths).toEqual([
      "created_at",
      "source.fingerprint",
      "source.dataset.sha256",
      "questions.is_spam.method",
      "questions.is_spam.threshold.min_confidence",
      "questions.is_spam.metrics.after.ece",
      "questions.is_spam.extra",
    ]);
    expect(errors[1].message).toBe("missing; expected a non-empty string");
    expect(errors[3].message).toMatch(/"magic"; expected one of identity, temperature, vector/);
    try {
      parseCalibrationFile(bad);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CalibrationFileError);
      expect((err as CalibrationFileError).errors).toEqual(errors);
      expect((err as Error).message).toMatch(/^invalid calibration file: created_at: /);
    }
  });
  it("the fields of how numbers were obtained: optional, and checked with their paths when present", () => {
    const full = JSON.parse(JSON.stringify(example));
    Object.assign(full.questions.is_spam, {
      selection: {
        by: "cross-fit",
        folds: 5,
        criterion: "nll",
        verdict: "indistinguishable",
        note: "platt is indistinguishable from temperature; the simpler temperature is kept",
      },
      warnings: ["all 89 fit items are correct"],
    });
    full.questions.is_spam.threshold.chosen_on = "fit split, out-of-fold (5-fold cross-fit)";
    full.questions.is_spam.metrics.estimated_by = "evaluation split";
    expect(calibrationFileErrors(full)).toEqual([]);
    const multi = {
      kind: "multi",
      options: ["x", "y"],
      method: "identity",
      params: {},
      label_thresholds: [{ label: "x", threshold: 0.4, n: 100, f1: [0.7, 0.6, 0.8] }],
      answered: { share: 0.08, error: [0.041, 0.02, 0.07], n: 100 },
    };
    expect(calibrationFileErrors({ ...example, questions: { m: multi } })).toEqual([]);
    const side = { ece: [0.03, 0.01, 0.05], nll: [0.4, 0.38, 0.42] };
    const withMetrics = { ...multi, label_metrics: [{ label: "x", n: 100, before: side, after: side }] };
    expect(calibrationFileErrors({ ...example, questions: { m: withMetrics } })).toEqual([]);
    const badMetrics = {
      ...multi,
      label_metrics: [
        { label: "w", n: 1.5, before: { ece: [0.05, 0.06, 0.07], nll: [0.4, 0.3, 0.5], brier: [0, 0, 0] } },
        { label: "y", n: 10, before: side, after: { ece: [2, 1, 3], nll: [-1, -2, 0] }, extra: 1 },
      ],
    };
    const metricErrors = calibrationFileErrors({ ...example, questions: { m: badMetrics } });
    expect(metricErrors.map((e) => e.path)).toEqual([
      "questions.m.label_metrics[0].label",
      "questions.m.label_metrics[0].n",
      "questions.m.label_metrics[0].before.ece",
      "questions.m.label_metrics[0].before.brier",
      "questions.m.label_metrics[0].after",
      "questions.m.label_metrics[1].after.ece",
      "questions.m.label_metrics[1].after.nll",
      "questions.m.label_metrics[1].extra",
    ]);
    expect(metricErrors[2].message).toBe("expected low <= point <= high");
    expect(metricErrors[4].message).toBe("missing; expected { ece, nll }");
    const single = { ...example.questions.is_spam, label_metrics: [] };
    expect(calibrationFileErrors({ ...example, questions: { s: single } })).toEqual([
      { path: "questions.s.label_metrics", message: "only multi-label questions have label metrics" },
    ]);
    const bad = JSON.parse(JSON.stringify(full));
    bad.questions.is_spam.selection = {
      by: "magic",
      folds: 1,
      criterion: "ece",
      verdict: "forced",
      note: "",
    };
    bad.questions.is_spam.warnings = ["ok", 3];
    bad.questions.is_spam.threshold.chosen_on = 7;
    bad.questions.is_spam.metrics.estimated_by = "test";
    bad.questions.is_spam.label_thresholds = [{ label: "maybe", threshold: 2, n: -1, f1: [0.5, 0.6, 0.7] }];
    bad.questions.is_spam.answered = { share: 1.5, error: [0.1, 0.2], n: 3 };
    const errors = calibrationFileErrors(bad);
    expect(errors.map((e) => e.path)).toEqual([
      "questions.is_spam.threshold.chosen_on",
      "questions.is_spam.metrics.estimated_by",
      "questions.is_spam.selection.by",
      "questions.is_spam.selection.folds",
      "questions.is_spam.selection.criterion",
      "questions.is_spam.selection.verdict",
      "questions.is_spam.selection.note",
      "questions.is_spam.warnings",
      "questions.is_spam.label_thresholds",
      "questions.is_spam.label_thresholds[0].label",
      "questions.is_spam.label_thresholds[0].threshold",
      "questions.is_spam.label_thresholds[0].n",
      "questions.is_spam.label_thresholds[0].f1",
      "questions.is_spam.answered.share",
      "questions.is_spam.answered.error",
    ]);
    expect(errors[1].message).toBe('"test"; expected one of "evaluation split", "cross-fit"');
    expect(errors[2].message).toBe('"magic"; expected one of "user", "cross-fit", "selection-split"');
    expect(errors[5].message).toBe('"forced"; "forced" goes with by "user" and only with it');
    expect(errors[8].message).toBe("only multi-label questions have label thresholds");
  });
  it("params are checked against the method and the option count", () => {
    const q = (over: object) => ({ ...example, questions: { q: { ...example.questions.is_spam, ...over } } });
    expect(calibrationFileErrors(q({ params: { temperature: -1 } }))[0]).toEqual({
      path: "questions.q.params.temperature",
      message: "-1; expected a number > 0",
    });
    expect(calibrationFileErrors(q({ method: "platt", params: { classes: [] } }))[0].path).toBe(
      "questions.q.params.positive",
    );
    expect(
      calibrationFileErrors(
        q({
          kind: "choice",
          options: ["a", "b", "c"],
          method: "vector",
          params: { temperature: 1, bias: [0, 1] },
        }),
      )[0],
    ).toEqual({ path: "questions.q.params.bias", message: "has 2 numbers; expected 3" });
    expect(
      calibrationFileErrors(q({ kind: "multi", options: ["x", "y"], method: "vector", params: {} }))[0].path,
    ).toBe("questions.q.method");
    expect(
      calibrationFileErrors(
        q({ method: "isotonic", params: { positive: { x: [0.1, 0.5], y: [0.9, 0.2] } } }),
      )[0],
    ).toEqual({ path: "questions.q.params.positive.y", message: "must be non-decreasing" });
  });
});

function run(seed: number, temperature: number, n = 3000) {
  return synthetic({ n, k: 2, temperature, seed });
}

describe("building, applying and checking", () => {
  const fit = run(1, 0.5);
  const evalSplit = run(2, 0.5);
  const entry = calibrateQuestion(fit, evalSplit, {
    kind: "yesno",
    options: ["yes", "no"],
    method: "temperature",
    targetRisk: 0.1,
    resamples: 200,
  });
  const file = buildCalibrationFile({
    source,
    questions: { is_spam: entry },
    createdAt: "2026-11-21T10:00:00Z",
  });

  it("calibrateQuestion fits, thresholds and measures before and after", () => {
    expect(entry.method).toBe("temperature");
    expect((entry.params as { temperature: number }).temperature).toBeGreaterThan(1.5);
    expect(entry.threshold?.target_risk).toBe(0.1);
    expect(entry.threshold?.min_confidence).toBeGreaterThan(0.5);
    const { before, after } = entry.metrics!;
    expect(after!.ece[0]).toBeLessThan(before!.ece[0]);
    expect(after!.answered_error[0]).toBeLessThan(0.15);
    expect(Object.keys(after!)).toEqual([
      "ece",
      "ece_mass",
      "mce",
      "nll",
      "brier",
      "accuracy",
      "answered_error",
      "coverage",
    ]);
  });

  it("the built file is valid JSON that round-trips", () => {
    expect(file.schema).toBe(CALIBRATION_SCHEMA);
    const again = parseCalibrationFile(JSON.stringify(file));
    expect(again).toEqual(file);
    expect(() =>
      buildCalibrationFile({
        source: { ...source, served_by: "bayes-2" as unknown as string[] },
        questions: {},
      }),
    ).toThrow(/source.served_by: "bayes-2"; expected an array of model names; questions: is empty/);
  });

  it("applyCalibration reproduces the fitted calibrator", () => {
    const ts = temperatureScaling();
    const expected = ts.apply(entry.params as { temperature: number }, evalSplit);
    expect(Array.from(applyCalibration(file, "is_spam", evalSplit))).toEqual(Array.from(expected));
    expect(() => applyCalibration(file, "nope", evalSplit)).toThrow(/no question "nope"; it has is_spam/);
    expect(() => applyCalibration(file, "is_spam", { probs: new Float64Array(3), k: 3 })).toThrow(
      /has 2 options \(yes, no\) but the probabilities have 3 columns/,
    );
  });

  it("check passes on a new run of the same model", () => {
    const r = checkCalibration(file, {
      fingerprint: source.fingerprint,
      servedBy: ["bayes-2"],
      questions: { is_spam: run(3, 0.5, 20000) },
    });
    expect(r.reasons).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.questions.is_spam.ok).toBe(true);
    // the file's ECE interval is bias-aware and reaches down to the true ECE: a larger run is inside it, two-sided too
    const big = run(3, 0.5, 20000);
    expect(
      checkCalibration(
        file,
        { fingerprint: source.fingerprint, questions: { is_spam: big } },
        { twoSided: true },
      ).ok,
    ).toBe(true);
    // a value below a recorded interval is noted, and a failure only when two-sided
    const narrow = JSON.parse(JSON.stringify(file)) as CalibrationFile;
    const e = r.questions.is_spam.ece;
    narrow.questions.is_spam.metrics!.after!.ece = [e + 0.01, e + 0.005, e + 0.02];
    const noted = checkCalibration(narrow, { fingerprint: source.fingerprint, questions: { is_spam: big } });
    expect(noted.ok).toBe(true);
    expect(noted.notes[0]).toMatch(/^is_spam: calibrated ECE 0\.\d{4} is below the file's interval/);
    const strict = checkCalibration(
      narrow,
      { fingerprint: source.fingerprint, questions: { is_spam: big } },
      { twoSided: true },
    );
    expect(strict.ok).toBe(false);
    expect(strict.reasons[0].code).toBe("ece-outside");
  });

  it("smaller runs of the same model pass: the check compares the bias-corrected ECE, not the plug-in", () => {
    // the file's interval is for the true ECE (measured on 3000 items); a 1000-item run's plug-in ECE overestimates it
    let aboveCorrected = 0;
    let abovePlugin = 0;
    for (let s = 0; s < 50; s++) {
      const q = checkCalibration(file, {
        fingerprint: source.fingerprint,
        questions: { is_spam: run(100 + s, 0.5, 1000) },
      }).questions.is_spam;
      if (q.ece > q.eceInterval![1]) aboveCorrected++;
      if (q.ecePlugin > q.eceInterval![1]) abovePlugin++;
    }
    expect(aboveCorrected).toBeLessThanOrEqual(5); // measured 3 in 100
    expect(aboveCorrected).toBeLessThan(abovePlugin); // the plug-in: 13 in 100
  });

  it("check fails when the served model changed, naming why", () => {
    const r = checkCalibration(file, {
      fingerprint: "decision|http://127.0.0.1:8009/v1/decision|other",
      servedBy: ["bayes-3"],
      questions: {},
    });
    expect(r.ok).toBe(false);
    expect(r.reasons.map((x) => x.code)).toEqual(["fingerprint-changed", "served-by-changed"]);
    expect(r.reasons[1].message).toMatch(/served by \[bayes-3\], the file was fitted on \[bayes-2\]/);
    expect(r.skipped).toEqual(["is_spam"]);
  });

  it("check fails when the calibrated ECE or the answered-alone error leaves its interval", () => {
    // new weights: much more overconfident; the old temperature no longer fits
    const drifted = run(4, 0.15, 20000);
    const r = checkCalibration(file, { fingerprint: source.fingerprint, questions: { is_spam: drifted } });
    expect(r.ok).toBe(false);
    const codes = r.reasons.map((x) => x.code);
    expect(codes).toContain("ece-outside");
    expect(codes).toContain("answered-error-outside");
    const q = r.questions.is_spam;
    expect(q.ece).toBeGreaterThan(q.eceInterval![1]);
    expect(q.ecePlugin).toBeCloseTo(
      ece(topLabel({ ...drifted, probs: applyCalibration(file, "is_spam", drifted) })),
      15,
    );
    expect(Math.abs(q.ece - q.ecePlugin)).toBeLessThan(0.005); // 20000 items: the bias correction is small
    expect(r.reasons[0].message).toMatch(/^is_spam: calibrated ECE 0\.\d{4} is above the file's interval/);
    expect(() =>
      checkCalibration(file as CalibrationFile, { fingerprint: "x", questions: { other: drifted } }),
    ).toThrow(/no question "other"/);
  });
});

describe("calibrateQuestion without a fixed method", () => {
  it("chooses by cross-fitting on the fit split and records a valid entry", () => {
    const fit = synthetic({ n: 1500, k: 3, temperature: 0.5, seed: 8 });
    const evalSplit = synthetic({ n: 1500, k: 3, temperature: 0.5, seed: 9 });
    const entry = calibrateQuestion(fit, evalSplit, {
      kind: "choice",
      options: ["a", "b", "c"],
      resamples: 50,
    });
    expect(entry.method).not.toBe("identity");
    expect(entry.threshold).toBeUndefined();
    expect(entry.metrics!.after!.nll[0]).toBeLessThan(entry.metrics!.before!.nll[0]);
    const file = buildCalibrationFile({ source, questions: { q: entry } });
    expect(validateCalibrationFile(JSON.parse(JSON.stringify(file))).ok).toBe(true);
    expect(() => calibrateQuestion(fit, evalSplit, { kind: "multi", options: ["a", "b", "c"] })).toThrow(
      /kind multi does not match multiclass data/,
    );
  });
});
