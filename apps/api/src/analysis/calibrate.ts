import {
  buildCalibrationFile,
  type CalibrationFile,
  type CalibrationSource,
  calibrateQuestion,
  calibrationReport,
  calibrator,
  chooseCalibrator,
  clopperPearsonInterval,
  crossFit,
  type Estimate,
  type HeadlineMetrics,
  type Labelled,
  labelCalibrator,
  METHODS,
  type Method,
  type MulticlassCalibrator,
  type MultiLabel,
  type MultiLabelCalibrator,
  NothingLearnedError,
  type QuestionCalibration,
} from "@decision-workbench/calibration";
import { type Bin, binsOf } from "./bins.js";
import type { ItemData } from "./matrix.js";
import { autoResamples } from "./metrics.js";
import { libraryData, topView, withProbs } from "./views.js";

/** What to fit: the split to fit on, where to evaluate (another split, or k-fold cross-fitting on the fit split). */
export interface FitOptions {
  /** Methods to compare (identity is always one), or "auto" for every method that fits the item's kind. */
  methods?: Method[] | "auto";
  /** Held-out score choosing the winner: "nll" (default) or "brier". */
  select?: "nll" | "brier";
  /** Target answered-alone error of the escalation threshold (none when absent). */
  targetRisk?: number;
  /** Choose the threshold with the Clopper-Pearson upper bound instead of the point error. */
  conservative?: boolean;
  bins?: number;
  resamples?: number;
  seed?: number;
}

/** One candidate method's held-out results. */
export interface Candidate {
  method: Method;
  /** Held-out metrics with CIs; null when the method could not be fitted (see `error`). */
  heldOut: {
    nll: Estimate;
    brier: Estimate;
    ece: Estimate;
    accuracy: Estimate;
    eceMass: Estimate;
    mce: Estimate;
  } | null;
  /** Paired differences candidate - identity on the held-out rows. */
  delta: { nll: Estimate; brier: Estimate; ece: Estimate; accuracy: Estimate } | null;
  chosen: boolean;
  /** Held-out predicted Unknown rate (single-label items that allow `not stated`). */
  unknownRate: number | null;
  warning?: string;
  error?: string;
}

/** One item's fit: the file entry, every candidate, and reliability before and after on the evaluation rows. */
export interface ItemFit {
  question: QuestionCalibration;
  candidates: Candidate[];
  before: Bin[];
  after: Bin[];
  n: { fit: number; eval: number };
}

function pick(h: HeadlineMetrics | null) {
  return h
    ? { nll: h.nll, brier: h.brier, ece: h.ece, accuracy: h.accuracy, eceMass: h.eceMass, mce: h.mce }
    : null;
}

function methodCalibrator(d: ItemData, method: Method): MulticlassCalibrator | MultiLabelCalibrator {
  return d.multi ? labelCalibrator(method) : calibrator(method);
}

/** The methods tried for an item ("auto": all; vector scaling has no multi-label form). */
export function candidateMethods(d: ItemData, methods: FitOptions["methods"]): Method[] {
  const all = METHODS.filter((m) => !(d.multi && m === "vector"));
  if (methods === undefined || methods === "auto") return all;
  for (const m of methods) {
    if (!METHODS.includes(m)) {
      throw new RangeError(
        `unknown calibration method ${JSON.stringify(m)}; expected one of ${METHODS.join(", ")}`,
      );
    }
    if (d.multi && m === "vector") {
      throw new RangeError(
        `"vector" scaling has no per-label form for the multi-label item ${d.spec.name}; use "platt"`,
      );
    }
  }
  return methods;
}

function fileMetrics(
  d: ItemData,
  minConfidence: number | null,
  o: { bins: number; resamples: number; seed: number },
): Record<string, Estimate> {
  const r = calibrationReport(libraryData(d), { bins: o.bins, resamples: o.resamples, seed: o.seed });
  const out: Record<string, Estimate> = {
    ece: r.ece,
    ece_mass: r.eceMass,
    mce: r.mce,
    nll: r.nll,
    brier: r.brier,
    accuracy: r.accuracy,
  };
  const top = topView(d);
  let answered = 0;
  let errors = 0;
  if (minConfidence !== null) {
    for (let i = 0; i < top.p.length; i++) {
      if (top.p[i] >= minConfidence) {
        answered++;
        if (top.y[i] !== 1) errors++;
      }
    }
  }
  if (answered > 0) out.answered_error = [errors / answered, ...clopperPearsonInterval(errors, answered)];
  const coverage = top.p.length > 0 ? answered / top.p.length : 0;
  out.coverage = [coverage, coverage, coverage];
  return out;
}

/**
 * Fits one item: every candidate calibrator is fitted on `fit` and scored on `evaluation` (or, when it is null, by
 * k-fold cross-fitting on `fit`); the winner by held-out NLL (or Brier) becomes the file entry, with its escalation
 * threshold chosen on the calibrated fit rows and its metrics before and after on the held-out rows.
 */
export function fitItem(fit: ItemData, evaluation: ItemData | null, opts: FitOptions = {}): ItemFit {
  if (fit.m === 0) throw new NothingLearnedError();
  if (evaluation && evaluation.m === 0) {
    throw new RangeError(
      `item ${fit.spec.name}: the evaluation split has no usable predictions (answered or Unknown, with a gold label); evaluate with "crossfit" instead`,
    );
  }
  const bins = opts.bins ?? 15;
  const seed = opts.seed ?? 0;
  const resamples = opts.resamples ?? autoResamples(Math.max(fit.m, evaluation?.m ?? 0));
  const methods = candidateMethods(fit, opts.methods);
  const fitData = libraryData(fit);
  const evalData = evaluation ? libraryData(evaluation) : undefined;
  const unknownOption = !fit.multi && fit.spec.notStated ? fit.k - 1 : undefined;
  const chosen = chooseCalibrator(fitData, {
    eval: evalData,
    candidates: methods,
    criterion: opts.select ?? "nll",
    bins,
    resamples,
    seed,
    unknownOption,
  });
  const candidates: Candidate[] = chosen.candidates.map((c) => {
    const out: Candidate = {
      method: c.method,
      heldOut: pick(c.heldOut),
      delta: c.delta
        ? { nll: c.delta.nll, brier: c.delta.brier, ece: c.delta.ece, accuracy: c.delta.accuracy }
        : null,
      chosen: c.method === chosen.winner,
      unknownRate: c.unknownRate,
    };
    if (c.warnings.length > 0) out.warning = c.warnings.join("; ");
    if (c.error) out.error = c.error;
    return out;
  });
  const method = chosen.winner;
  const thresholdMethod = opts.conservative ? "upper" : "point";
  let question: QuestionCalibration;
  let heldOut: ItemData;
  let heldOutAfter: ItemData;
  if (evaluation && evalData) {
    question = calibrateQuestion(fitData, evalData, {
      kind: fit.spec.kind,
      options: fit.columns,
      method,
      targetRisk: opts.targetRisk,
      thresholdMethod,
      bins,
      resamples,
      seed,
    });
    heldOut = evaluation;
    heldOutAfter = withProbs(
      evaluation,
      methodCalibrator(fit, method).apply(question.params as never, evalData),
    );
  } else {
    // Cross-fitting: the entry's params are fitted on every fit row; the after-metrics use out-of-fold probabilities.
    question = calibrateQuestion(fitData, fitData, {
      kind: fit.spec.kind,
      options: fit.columns,
      method,
      targetRisk: opts.targetRisk,
      thresholdMethod,
      bins,
      resamples,
      seed,
    });
    const oof = crossFit(methodCalibrator(fit, method) as never, fitData as Labelled & MultiLabel, { seed });
    heldOut = fit;
    heldOutAfter = withProbs(fit, oof.probs);
    const minConfidence = question.threshold ? question.threshold.min_confidence : null;
    question.metrics = {
      before: fileMetrics(fit, minConfidence, { bins, resamples, seed }),
      after: fileMetrics(heldOutAfter, minConfidence, { bins, resamples, seed }),
    };
  }
  return {
    question,
    candidates,
    before: binsOf(topView(heldOut), { bins, binning: "width", interval: "wilson" }),
    after: binsOf(topView(heldOutAfter), { bins, binning: "width", interval: "wilson" }),
    n: { fit: fit.m, eval: heldOut.m },
  };
}

/**
 * The interval widened to hold its point. A percentile bootstrap interval of a biased statistic (binned ECE grows
 * under resampling) can lie wholly above the point, which the file schema does not allow (low <= point <= high).
 */
export function holdPoint(e: Estimate): Estimate {
  return [e[0], Math.min(e[1], e[0]), Math.max(e[2], e[0])];
}

function withHeldPoints(q: QuestionCalibration): QuestionCalibration {
  if (!q.metrics) return q;
  const fix = (m: Record<string, Estimate> | undefined) =>
    m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, holdPoint(v)])) : undefined;
  const metrics: NonNullable<QuestionCalibration["metrics"]> = {};
  if (q.metrics.before) metrics.before = fix(q.metrics.before);
  if (q.metrics.after) metrics.after = fix(q.metrics.after);
  return { ...q, metrics };
}

/** Builds and validates the calibration file of several fitted items (intervals widened to hold their points). */
export function calibrationFile(
  source: CalibrationSource,
  fits: Record<string, ItemFit>,
  createdAt?: Date | string,
): CalibrationFile {
  const questions: Record<string, QuestionCalibration> = {};
  for (const [name, f] of Object.entries(fits)) questions[name] = withHeldPoints(f.question);
  return buildCalibrationFile({ source, questions, createdAt });
}
