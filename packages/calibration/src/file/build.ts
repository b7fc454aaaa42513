import { bootstrapOptions } from "../bootstrap/bootstrap.js";
import { chooseCalibrator } from "../calibrators/choose.js";
import { calibrator, labelCalibrator, METHODS, type Method } from "../calibrators/registry.js";
import type { Calibrator } from "../calibrators/types.js";
import { NothingLearnedError } from "../errors.js";
import { checkBins, checkLabelled, checkMultiLabel, isMultiLabel } from "../input.js";
import { clopperPearsonInterval } from "../intervals/clopper-pearson.js";
import { calibrationReport } from "../report/report.js";
import { escalationThreshold } from "../thresholds/escalation.js";
import type { BootstrapOptions, Estimate, Labelled, MultiLabel, ProbMatrix } from "../types.js";
import { multiLabelTop, topLabelUnchecked } from "../views.js";
import {
  CALIBRATION_SCHEMA,
  type CalibrationFile,
  CalibrationFileError,
  type CalibrationSource,
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
  /** A fixed method; without it, chooseCalibrator picks one by cross-fitted `criterion` on the fit split. */
  method?: Method;
  criterion?: "nll" | "brier";
  /** Target answered-alone error for the escalation threshold (none when absent). */
  targetRisk?: number;
  /** "point" (default) or "upper" (Clopper-Pearson bound). */
  thresholdMethod?: "point" | "upper";
  bins?: number;
}

/**
 * One question's calibration-file entry: the calibrator fitted on the fit split (chosen there by cross-fitting unless
 * fixed), the escalation threshold chosen on the calibrated fit split, and the eval-split metrics before and after
 * with bootstrap CIs (answered_error with a Clopper-Pearson interval) [Kull et al. 2019; Guo et al. 2017].
 */
export function calibrateQuestion(
  fit: Labelled | MultiLabel,
  evalSplit: Labelled | MultiLabel,
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
  if (opts.options.length !== fit.k || evalSplit.k !== fit.k) {
    throw new RangeError(
      `calibrateQuestion: ${opts.options.length} option names for ${fit.k} probability columns`,
    );
  }
  const o = bootstrapOptions(opts, "calibrateQuestion");
  const bins = checkBins(opts.bins ?? 15, "calibrateQuestion");
  let method: Method;
  let params: unknown;
  if (opts.method) {
    if (!METHODS.includes(opts.method))
      throw new RangeError(`calibrateQuestion: unknown method ${JSON.stringify(opts.method)}`);
    method = opts.method;
    const cal = (multi ? labelCalibrator(method) : calibrator(method)) as Calibrator<
      Labelled | MultiLabel,
      unknown,
      ProbMatrix
    >;
    params = cal.fit(fit);
  } else {
    // chosen by cross-fitting on the fit split, so the eval split stays untouched for the reported metrics
    const chosen = chooseCalibrator(fit, { ...o, criterion: opts.criterion, bins });
    method = chosen.winner;
    params = chosen.params;
  }
  const cal = (multi ? labelCalibrator(method) : calibrator(method)) as Calibrator<
    Labelled | MultiLabel,
    unknown,
    ProbMatrix
  >;
  const fitAfter = { ...fit, probs: cal.apply(params, fit) } as Labelled | MultiLabel;
  const evalAfter = { ...evalSplit, probs: cal.apply(params, evalSplit) } as Labelled | MultiLabel;
  const entry: QuestionCalibration = {
    kind: opts.kind,
    options: opts.options,
    method,
    params: params as Record<string, unknown>,
  };
  let minConfidence: number | null = null;
  if (opts.targetRisk !== undefined) {
    const t = escalationThreshold(fitAfter, {
      targetRisk: opts.targetRisk,
      method: opts.thresholdMethod,
      level: o.level,
    });
    minConfidence = t.minConfidence;
    entry.threshold = { target_risk: opts.targetRisk, min_confidence: minConfidence };
  }
  entry.metrics = {
    before: fileMetrics(evalSplit, minConfidence, o, bins),
    after: fileMetrics(evalAfter, minConfidence, o, bins),
  };
  return entry;
}
