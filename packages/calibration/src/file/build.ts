import { biasBounded, percentileEstimate } from "../bootstrap/basic.js";
import { bootstrapOptions } from "../bootstrap/bootstrap.js";
import { bootstrapRuns, type RunItems } from "../bootstrap/engine.js";
import { binnedBounds, type ChooseResult, chooseCalibrator, collectWarnings } from "../calibrators/choose.js";
import { crossFit } from "../calibrators/cross-fit.js";
import { diagnose, minItems } from "../calibrators/diagnostics.js";
import { calibrator, labelCalibrator, METHODS, type Method } from "../calibrators/registry.js";
import type { Calibrator } from "../calibrators/types.js";
import { NothingLearnedError } from "../errors.js";
import { checkBins, checkLabelled, checkMultiLabel, isMultiLabel } from "../input.js";
import { clopperPearsonInterval } from "../intervals/clopper-pearson.js";
import { pointMetrics } from "../report/points.js";
import { calibrationReport } from "../report/report.js";
import { escalationThreshold } from "../thresholds/escalation.js";
import { f1Estimate } from "../thresholds/f1-interval.js";
import { type LabelObjective, labelThresholds } from "../thresholds/labels.js";
import type { BootstrapOptions, Estimate, Labelled, MultiLabel, ProbMatrix } from "../types.js";
import { multiLabelTop, topLabelUnchecked } from "../views.js";
import {
  CALIBRATION_SCHEMA,
  type CalibrationFile,
  CalibrationFileError,
  type CalibrationSource,
  type FileLabelMetrics,
  type FileLabelThreshold,
  type FileSelection,
  type QuestionCalibration,
  type QuestionKind,
} from "./schema.js";
import { calibrationFileErrors } from "./validate.js";

/** Builds a calibration file (created_at defaults to now), validating it; throws CalibrationFileError if invalid. */
export function buildCalibrationFile(input: {
  source: CalibrationSource;
  questions: Record<string, QuestionCalibration>;
  createdAt?: Date | string;
}): CalibrationFile {
  const created = input.createdAt ?? new Date();
  const file = {
    schema: CALIBRATION_SCHEMA,
    created_at: typeof created === "string" ? created : created.toISOString().replace(/\.\d{3}Z$/, "Z"),
    source: input.source,
    questions: input.questions,
  } as CalibrationFile;
  const doc = JSON.parse(JSON.stringify(file));
  const errors = calibrationFileErrors(doc);
  if (errors.length > 0) throw new CalibrationFileError(errors);
  return doc as CalibrationFile;
}

/** Answered-alone error at a confidence threshold, with its Clopper-Pearson interval, and the coverage. Internal. */
export function answeredError(
  d: Labelled | MultiLabel,
  minConfidence: number | null,
  level: number,
): { error: Estimate | null; coverage: number } {
  const top = isMultiLabel(d)
    ? multiLabelTop(d)
    : topLabelUnchecked(d.probs, d.probs.length / d.k, d.k, (d as Labelled).gold);
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
  const coverage = top.p.length > 0 ? answered / top.p.length : 0;
  if (answered === 0) return { error: null, coverage };
  return { error: [errors / answered, ...clopperPearsonInterval(errors, answered, level)], coverage };
}

function fileMetrics(
  d: Labelled | MultiLabel,
  minConfidence: number | null,
  o: BootstrapOptions,
  bins: number,
) {
  const r = calibrationReport(d, { ...o, bins });
  const out: Record<string, Estimate> = {
    ece: r.ece,
    ece_mass: r.eceMass,
    mce: r.mce,
    nll: r.nll,
    brier: r.brier,
    accuracy: r.accuracy,
  };
  const a = answeredError(d, minConfidence, o.level ?? 0.95);
  if (a.error) out.answered_error = a.error;
  out.coverage = [a.coverage, a.coverage, a.coverage];
  return out;
}

/** Options of calibrateQuestion. */
export interface CalibrateQuestionOptions extends BootstrapOptions {
  kind: QuestionKind;
  options: string[];
  /** A method forced by the user (fitted on the fit split, no selection), or "auto" (default): chooseCalibrator. */
  method?: Method | "auto";
  /** A chooseCalibrator result the caller already computed on the same fit split (auto only): reused, not redone. */
  choice?: ChooseResult;
  /** A separate selection split for auto (never the evaluation split); default: cross-fitting inside the fit split. */
  selection?: Labelled | MultiLabel;
  /** Folds of the cross-fitting (selection, out-of-fold threshold, one-split metrics): 5. */
  folds?: number;
  /** Methods auto tries (identity always): every method valid for the kind by default. */
  candidates?: Method[];
  criterion?: "nll" | "brier";
  /** Target answered-alone error for the escalation threshold (none when absent). */
  targetRisk?: number;
  /** "point" (default) or "upper" (Clopper-Pearson bound). */
  thresholdMethod?: "point" | "upper";
  /** Multi-label: what the per-label thresholds maximise ("f1" by default). */
  labelObjective?: LabelObjective;
  bins?: number;
}

type Cal = Calibrator<Labelled | MultiLabel, unknown, ProbMatrix>;

/** The evaluation split: the same kind and options as the fit split, and not the fit split itself. */
function checkEvalSplit(fit: Labelled | MultiLabel, evalSplit: Labelled | MultiLabel, multi: boolean): void {
  if (evalSplit === fit || evalSplit.probs === fit.probs) {
    throw new RangeError(
      "calibrateQuestion: the evaluation split is the fit split; pass null to report out-of-fold cross-fit estimates instead",
    );
  }
  if (isMultiLabel(evalSplit) !== multi || evalSplit.k !== fit.k) {
    throw new RangeError(
      "calibrateQuestion: the evaluation split must be the same kind of question with the same options as the fit split, or null for a run with one split",
    );
  }
  const m = multi
    ? checkMultiLabel(evalSplit as MultiLabel, "calibrateQuestion (evaluation split)")
    : checkLabelled(evalSplit as Labelled, "calibrateQuestion (evaluation split)");
  if (m === 0)
    throw new RangeError("calibrateQuestion: the evaluation split has no usable items to evaluate on");
}

function calOf(multi: boolean, method: Method): Cal {
  return (multi ? labelCalibrator(method) : calibrator(method)) as Cal;
}

/** Multi-label: each label's threshold chosen on `chosenOn`, with its F1 and bootstrap interval on `reportOn`. */
function fileLabelThresholds(
  chosenOn: MultiLabel,
  reportOn: MultiLabel,
  names: string[],
  objective: LabelObjective,
  o: { resamples: number; seed: number; level: number },
  warnings: string[],
): FileLabelThreshold[] {
  const chosen = labelThresholds(chosenOn, objective);
  const n = reportOn.probs.length / reportOn.k;
  const k = reportOn.k;
  return chosen.map((c, j) => {
    let threshold = c.threshold;
    if (threshold === null) {
      threshold = 0.5;
      warnings.push(
        `label ${names[j]}: no threshold qualifies on the fit split (no positive items); 0.5 kept`,
      );
    }
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (let i = 0; i < n; i++) {
      const on = reportOn.probs[i * k + j] >= threshold;
      const y = reportOn.labels[i * k + j] === 1;
      if (on && y) tp++;
      else if (on) fp++;
      else if (y) fn++;
    }
    const f1 = f1Estimate(tp, fp, fn, n - tp - fp - fn, { ...o, seed: o.seed + j });
    return { label: names[j], threshold, n, f1 };
  });
}

const EPS = 2.220446049250313e-16;

/**
 * One label of a multi-label split as bootstrap items: its probability as the confidence and its outcome as the
 * "correct" flag, so the engine's equal-width ECE is the label's one-vs-rest ECE; binary NLL (clipped at machine
 * epsilon) and squared error per item.
 */
function labelItems(d: MultiLabel, j: number): RunItems {
  const n = d.probs.length / d.k;
  const conf = new Float64Array(n);
  const correct = new Uint8Array(n);
  const nll = new Float64Array(n);
  const brier = new Float64Array(n);
  labelColumnInto(d.probs, d.labels, d.k, j, conf, correct, nll, brier);
  return { conf, correct, nll, brier };
}

function labelColumnInto(
  probs: Float64Array,
  labels: ArrayLike<number>,
  k: number,
  j: number,
  conf: Float64Array,
  correct: Uint8Array,
  nll: Float64Array,
  brier: Float64Array,
): void {
  const eps = EPS;
  for (let i = 0, t = j; i < conf.length; i++, t += k) {
    const p = probs[t];
    const y = labels[t] === 1 ? 1 : 0;
    const q = Math.min(1 - eps, Math.max(eps, p));
    conf[i] = p;
    correct[i] = y;
    nll[i] = -Math.log(y === 1 ? q : 1 - q);
    brier[i] = (p - y) * (p - y);
  }
}

/**
 * Multi-label: each label's ECE (equal-width, one-vs-rest: bias-corrected with the report's bias-bounded interval)
 * and binary NLL (percentile interval), before and after calibration on the same rows, resampled together. Internal.
 */
export function fileLabelMetrics(
  before: MultiLabel,
  after: MultiLabel,
  names: string[],
  o: { resamples: number; seed: number; level: number },
  bins: number,
): FileLabelMetrics[] {
  const n = before.probs.length / before.k;
  return names.map((label, j) => {
    const runs = [labelItems(before, j), labelItems(after, j)];
    const reps = bootstrapRuns(runs, bins, o.resamples, o.seed + j);
    const [b, a] = runs.map((items, r) => {
      const point = pointMetrics(items, bins);
      return {
        ece: biasBounded(point.ece, reps[r].ece, o.level, binnedBounds(items, bins).ece),
        nll: percentileEstimate(point.nll, reps[r].nll, o.level),
      };
    });
    return { label, n, before: b, after: a };
  });
}

/**
 * One question's calibration-file entry, with selection, fitting and reporting on separate data: the method is forced
 * by the user or chosen by chooseCalibrator on the fit split only (cross-fitting, or a separate selection split); it is
 * fitted on the whole fit split; the escalation threshold (and, multi-label, each label's threshold) is chosen on the
 * fit split's out-of-fold calibrated probabilities; and the metrics before and after are measured once on the
 * evaluation split. Without an evaluation split (`null`: a run with one split) the after-metrics are out-of-fold
 * cross-fit estimates on the fit split, and `metrics.estimated_by` says so [Kull et al. 2019; Guo et al. 2017].
 */
export function calibrateQuestion(
  fit: Labelled | MultiLabel,
  evalSplit: Labelled | MultiLabel | null,
  opts: CalibrateQuestionOptions,
): QuestionCalibration {
  const multi = isMultiLabel(fit);
  const n = multi
    ? checkMultiLabel(fit as MultiLabel, "calibrateQuestion")
    : checkLabelled(fit as Labelled, "calibrateQuestion");
  if (n === 0) throw new NothingLearnedError();
  if (multi !== (opts.kind === "multi")) {
    throw new RangeError(
      `calibrateQuestion: kind ${opts.kind} does not match ${multi ? "multi-label" : "multiclass"} data`,
    );
  }
  if (opts.options.length !== fit.k) {
    throw new RangeError(
      `calibrateQuestion: ${opts.options.length} option names for ${fit.k} probability columns`,
    );
  }
  if (evalSplit === undefined) {
    throw new RangeError(
      "calibrateQuestion: the evaluation split is missing; pass it, or null for a run with one split (cross-fit estimates)",
    );
  }
  const o = bootstrapOptions(opts, "calibrateQuestion");
  const bins = checkBins(opts.bins ?? 15, "calibrateQuestion");
  const asked = opts.method ?? "auto";
  if (asked !== "auto" && !METHODS.includes(asked)) {
    throw new RangeError(
      `calibrateQuestion: unknown method ${JSON.stringify(asked)}; expected "auto" or one of ${METHODS.join(", ")}`,
    );
  }
  if (multi && asked === "vector") {
    throw new RangeError(
      'calibrateQuestion: "vector" scaling has no per-label form for multi-label questions; use "platt"',
    );
  }
  const folds = opts.folds ?? opts.choice?.folds ?? 5;
  if (!Number.isInteger(folds) || folds < 2) {
    throw new RangeError(`calibrateQuestion: folds must be an integer >= 2 (5 by default), got ${folds}`);
  }
  const criterion = opts.criterion ?? opts.choice?.criterion ?? "nll";
  let method: Method;
  let params: unknown;
  let selection: FileSelection;
  const warnings: string[] = [];
  if (asked !== "auto") {
    method = asked;
    params = calOf(multi, method).fit(fit);
    const d = diagnose(fit);
    warnings.push(...d.degenerate);
    const need = minItems(method, fit.k);
    if (n < need) warnings.push(`${method} was forced on ${n} fit items; it needs at least ${need}`);
    for (const w of collectWarnings(params)) if (!warnings.includes(w)) warnings.push(w);
    const advice = opts.choice ? `; auto would choose ${opts.choice.winner} (${opts.choice.verdict})` : "";
    selection = {
      by: "user",
      criterion,
      verdict: "forced",
      note: `${method} was chosen by the user; no selection was run${advice}`,
    };
  } else {
    const choice =
      opts.choice ??
      chooseCalibrator(fit, {
        selection: opts.selection,
        candidates: opts.candidates,
        criterion,
        folds,
        bins,
        resamples: o.resamples,
        seed: o.seed,
        level: o.level,
      });
    if (!METHODS.includes(choice.winner) || choice.params === null || choice.params === undefined) {
      throw new RangeError(
        "calibrateQuestion: opts.choice is not a chooseCalibrator result (no winner with params)",
      );
    }
    if (multi && choice.winner === "vector") {
      throw new RangeError(
        "calibrateQuestion: opts.choice chose vector scaling, which multi-label questions do not have; choose on this question's fit split",
      );
    }
    method = choice.winner;
    params = choice.params;
    warnings.push(...choice.warnings);
    selection = {
      by: choice.heldOut === "selection" ? "selection-split" : "cross-fit",
      criterion: choice.criterion,
      verdict: choice.verdict,
      note: choice.note,
    };
    if (choice.folds !== null) selection.folds = choice.folds;
  }
  // selection is final: only now is the evaluation split looked at
  if (evalSplit !== null) checkEvalSplit(fit, evalSplit, multi);
  const cal = calOf(multi, method);
  // out-of-fold calibrated fit probabilities: where thresholds are chosen, and the one-split after-metrics
  let oof: Float64Array;
  let oofWhere = `fit split, out-of-fold (${folds}-fold cross-fit)`;
  if (method === "identity") {
    oof = Float64Array.from(fit.probs);
    oofWhere = "fit split (identity: nothing fitted)";
  } else {
    try {
      oof = crossFit(cal, fit, { folds, seed: o.seed }).probs;
    } catch (err) {
      oof = cal.apply(params, fit);
      oofWhere = "fit split, in-sample";
      warnings.push(
        `no out-of-fold probabilities (${err instanceof Error ? err.message : String(err)}): thresholds are chosen on the calibrated fit split itself, which flatters them`,
      );
    }
  }
  const fitOof = { ...fit, probs: oof } as Labelled | MultiLabel;
  const entry: QuestionCalibration = {
    kind: opts.kind,
    options: opts.options,
    method,
    params: params as Record<string, unknown>,
    selection,
  };
  let minConfidence: number | null = null;
  if (opts.targetRisk !== undefined) {
    const t = escalationThreshold(fitOof, {
      targetRisk: opts.targetRisk,
      method: opts.thresholdMethod,
      level: o.level,
    });
    minConfidence = t.minConfidence;
    entry.threshold = { target_risk: opts.targetRisk, min_confidence: minConfidence, chosen_on: oofWhere };
  }
  const reportBefore = evalSplit ?? fit;
  const reportAfter = (evalSplit ? { ...evalSplit, probs: cal.apply(params, evalSplit) } : fitOof) as
    | Labelled
    | MultiLabel;
  if (!evalSplit) {
    warnings.push(
      "one split: the after-metrics are out-of-fold cross-fit estimates on the fit split, not untouched held-out data",
    );
  }
  entry.metrics = {
    before: fileMetrics(reportBefore, minConfidence, o, bins),
    after: fileMetrics(reportAfter, minConfidence, o, bins),
    estimated_by: evalSplit ? "evaluation split" : "cross-fit",
  };
  if (multi) {
    entry.label_thresholds = fileLabelThresholds(
      fitOof as MultiLabel,
      reportAfter as MultiLabel,
      opts.options,
      opts.labelObjective ?? "f1",
      o,
      warnings,
    );
    entry.label_metrics = fileLabelMetrics(
      reportBefore as MultiLabel,
      reportAfter as MultiLabel,
      opts.options,
      o,
      bins,
    );
    if (entry.threshold) {
      const a = answeredError(reportAfter, minConfidence, o.level);
      const m = reportAfter.probs.length / reportAfter.k;
      entry.answered = { share: a.coverage, error: a.error ?? [0, 0, 1], n: m };
    }
  }
  if (warnings.length > 0) entry.warnings = named(warnings, opts.options);
  return entry;
}

/** Warnings with option and label indices replaced by the question's option names ("label 2:" -> "label urgent:"). */
function named(warnings: string[], options: string[]): string[] {
  const name = (i: string) => options[Number(i)] ?? i;
  const out: string[] = [];
  for (const w of warnings) {
    const v = w
      .replace(/^label (\d+): /, (_, i) => `label ${name(i)}: `)
      .replace(/gold is option (\d+)/, (_, i) => `gold is option ${name(i)}`);
    if (!out.includes(v)) out.push(v);
  }
  return out;
}
