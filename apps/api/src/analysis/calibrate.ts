import {
  buildCalibrationFile,
  type CalibrationFile,
  type CalibrationSource,
  calibrateQuestion,
  calibrator,
  chooseCalibrator,
  crossFit,
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
import type { Calibration, Candidate, Selection } from "../shapes/calibrations.js";
import type { Bin } from "../shapes/reports.js";
import { binsOf } from "./bins.js";
import type { ItemData } from "./matrix.js";
import { autoResamples } from "./metrics.js";
import { selectedHow } from "./selection.js";
import { libraryData, topView, withProbs } from "./views.js";

/** What to fit: the method (forced or chosen), how candidates are compared, the threshold, the bootstrap. */
export interface FitOptions {
  /** "auto" (default): chosen among `methods`; a method name: forced, no selection. */
  method?: Method | "auto";
  /** Candidates of "auto" (identity is always one), or "auto" for every method that fits the item's kind. */
  methods?: Method[] | "auto";
  /** Held-out score comparing candidates: "nll" (default) or "brier". */
  select?: "nll" | "brier";
  /** Folds of the cross-fitting (5). */
  folds?: number;
  /** Target answered-alone error of the escalation threshold (none when absent). */
  targetRisk?: number;
  /** Choose the threshold with the Clopper-Pearson upper bound instead of the point error. */
  conservative?: boolean;
  bins?: number;
  resamples?: number;
  seed?: number;
  /** Split names, for the words of `selection` (default fit split: calibration). */
  names?: { fit: string; selection?: string };
}

/** One item's fit: the file entry, every candidate, how the method was selected, before/after on the held-out rows. */
export interface ItemFit {
  question: QuestionCalibration;
  candidates: Candidate[];
  selection: Selection;
  /** Degenerate data, too few items, fits that hit their bounds: never silent. */
  warnings: string[];
  /** Where the after-metrics come from. */
  estimatedBy: NonNullable<Calibration["fit"]>["estimatedBy"];
  before: Bin[];
  after: Bin[];
  n: { fit: number; eval: number; selection?: number };
}

function pick(h: HeadlineMetrics | null) {
  return h
    ? { nll: h.nll, brier: h.brier, ece: h.ece, accuracy: h.accuracy, eceMass: h.eceMass, mce: h.mce }
    : null;
}

function methodCalibrator(d: ItemData, method: Method): MulticlassCalibrator | MultiLabelCalibrator {
  return d.multi ? labelCalibrator(method) : calibrator(method);
}

function checkMethod(d: ItemData, m: string): Method {
  if (!METHODS.includes(m as Method)) {
    throw new RangeError(
      `unknown calibration method ${JSON.stringify(m)}; expected "auto" or one of ${METHODS.join(", ")}`,
    );
  }
  if (d.multi && m === "vector") {
    throw new RangeError(
      `"vector" scaling has no per-label form for the multi-label item ${d.spec.name}; use "platt"`,
    );
  }
  return m as Method;
}

/** The methods tried for an item ("auto": all; vector scaling has no multi-label form). */
function candidateMethods(d: ItemData, methods: FitOptions["methods"]): Method[] {
  const all = METHODS.filter((m) => !(d.multi && m === "vector"));
  if (methods === undefined || methods === "auto") return all;
  for (const m of methods) checkMethod(d, m);
  return methods;
}

/**
 * The calibrated fit rows behind one-split after-metrics: out-of-fold like the library's, or (too few rows to
 * cross-fit) in-sample like its fallback, which it reports among the entry's warnings.
 */
function outOfFold(
  fit: ItemData,
  method: Method,
  question: QuestionCalibration,
  seed: number,
  folds: number,
): Float64Array {
  const cal = methodCalibrator(fit, method);
  const data = libraryData(fit) as Labelled & MultiLabel;
  try {
    return crossFit(cal as never, data, { seed, folds }).probs;
  } catch {
    return cal.apply(question.params as never, data);
  }
}

/**
 * Fits one item. Candidates are compared by k-fold cross-fitting inside `fit` (or on `selectionData`, a third split)
 * with the library's simplicity rule; a forced method skips selection (the comparison is still shown as advice). The
 * evaluation split is not read until the method is final: then the method, fitted on every fit row, is evaluated once
 * on it. Without an evaluation split the after-metrics are out-of-fold estimates on `fit`, and the entry says so.
 */
export function fitItem(
  fit: ItemData,
  evaluation: ItemData | (() => ItemData) | null,
  opts: FitOptions = {},
  selectionData: ItemData | null = null,
): ItemFit {
  if (fit.m === 0) throw new NothingLearnedError();
  if (selectionData && selectionData.m === 0) {
    throw new RangeError(
      `item ${fit.spec.name}: the selection split has no usable predictions (answered or Unknown, with a gold label); compare candidates by cross-fitting instead (leave selectionSplit out)`,
    );
  }
  const names = opts.names ?? { fit: "calibration" };
  const bins = opts.bins ?? 15;
  const seed = opts.seed ?? 0;
  const folds = opts.folds ?? 5;
  const criterion = opts.select ?? "nll";
  const resamples = opts.resamples ?? autoResamples(Math.max(fit.m, selectionData?.m ?? 0));
  const forced = opts.method && opts.method !== "auto" ? checkMethod(fit, opts.method) : null;
  // forced: every method is still compared, as advice next to the user's choice
  const methods = candidateMethods(fit, forced ? "auto" : opts.methods);
  const fitData = libraryData(fit);
  const unknownOption = !fit.multi && fit.spec.notStated ? fit.k - 1 : undefined;
  const choice = chooseCalibrator(fitData, {
    ...(selectionData ? { selection: libraryData(selectionData) } : {}),
    candidates: methods,
    criterion,
    folds,
    bins,
    resamples,
    seed,
    unknownOption,
  });
  // The method is final: only now is the evaluation split read.
  const evalItem = typeof evaluation === "function" ? evaluation() : evaluation;
  if (evalItem && evalItem.m === 0) {
    throw new RangeError(
      `item ${fit.spec.name}: the evaluation split has no usable predictions (answered or Unknown, with a gold label); evaluate with "crossfit" instead`,
    );
  }
  const evalData = evalItem ? libraryData(evalItem) : null;
  const question = calibrateQuestion(fitData, evalData, {
    kind: fit.spec.kind,
    options: fit.columns,
    method: forced ?? "auto",
    choice,
    folds,
    criterion,
    targetRisk: opts.targetRisk,
    thresholdMethod: opts.conservative ? "upper" : "point",
    bins,
    resamples,
    seed,
  });
  const method = question.method;
  const how: Pick<Selection, "by" | "on" | "folds"> = forced
    ? { by: "user", on: names.fit }
    : selectionData
      ? { by: "selection-split", on: names.selection ?? "selection" }
      : { by: "cross-fit", on: names.fit, folds };
  const lib = question.selection;
  const selection: Selection = {
    ...how,
    criterion: lib?.criterion ?? criterion,
    verdict: lib?.verdict ?? (forced ? "forced" : "identity"),
    note: forced
      ? (lib?.note ?? selectedHow(how, method))
      : `${selectedHow(how, method)}; ${lib?.note ?? ""}`,
  };
  if (question.selection) question.selection = { ...question.selection, note: selection.note };
  const candidates: Candidate[] = choice.candidates.map((c) => {
    const out: Candidate = {
      method: c.method,
      heldOut: pick(c.heldOut),
      delta: c.delta
        ? { nll: c.delta.nll, brier: c.delta.brier, ece: c.delta.ece, accuracy: c.delta.accuracy }
        : null,
      improvement: c.improvement,
      against: c.against,
      accepted: c.accepted,
      chosen: c.method === method,
      unknownRate: c.unknownRate,
      warnings: c.warnings,
    };
    if (c.error) out.error = c.error;
    return out;
  });
  let heldOut: ItemData;
  let heldOutAfter: ItemData;
  if (evalItem && evalData) {
    heldOut = evalItem;
    heldOutAfter = withProbs(
      evalItem,
      methodCalibrator(fit, method).apply(question.params as never, evalData),
    );
  } else {
    // the library's out-of-fold probabilities (same folds and seed) behind the one-split after-metrics
    heldOut = fit;
    heldOutAfter =
      method === "identity" ? fit : withProbs(fit, outOfFold(fit, method, question, seed, folds));
  }
  return {
    question,
    candidates,
    selection,
    warnings: question.warnings ?? [],
    estimatedBy: question.metrics?.estimated_by ?? (evalItem ? "evaluation split" : "cross-fit"),
    before: binsOf(topView(heldOut), { bins, binning: "width", interval: "wilson" }),
    after: binsOf(topView(heldOutAfter), { bins, binning: "width", interval: "wilson" }),
    n: selectionData
      ? { fit: fit.m, eval: heldOut.m, selection: selectionData.m }
      : { fit: fit.m, eval: heldOut.m },
  };
}

/** Builds and validates the calibration file of several fitted items (the library's estimates hold their points). */
export function calibrationFile(
  source: CalibrationSource,
  fits: Record<string, ItemFit>,
  createdAt?: Date | string,
): CalibrationFile {
  const questions: Record<string, QuestionCalibration> = {};
  for (const [name, f] of Object.entries(fits)) questions[name] = f.question;
  return buildCalibrationFile({ source, questions, createdAt });
}
