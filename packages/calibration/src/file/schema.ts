import type { Method } from "../calibrators/registry.js";
import type { Estimate } from "../types.js";

/** The schema identifier of version 1 of the calibration file. */
export const CALIBRATION_SCHEMA = "decision-workbench/calibration@1";

/** Question kinds of the decision-service contract. */
export type QuestionKind = "choice" | "yesno" | "score" | "multi";

/** Where the predictions a file was fitted on came from. */
export interface CalibrationSource {
  /** The scorer fingerprint, `decision|{endpoint}|{model}[|x:...]`. */
  fingerprint: string;
  endpoint: string;
  model: string;
  /** The model versions that actually answered (the replies' `model`). */
  served_by: string[];
  dataset: { name: string; sha256: string };
  fit_split: string;
  eval_split: string;
}

/** The escalation threshold of a question: answer alone at calibrated confidence >= min_confidence. */
export interface FileThreshold {
  target_risk: number;
  /** null: no threshold met the target on the fit split, escalate everything. */
  min_confidence: number | null;
  /** Where the threshold was chosen, e.g. "fit split, out-of-fold (5-fold cross-fit)". */
  chosen_on?: string;
}

/** How a question's method was selected. */
export interface FileSelection {
  /** "user": forced; "cross-fit": k-fold cross-fitting inside the fit split; "selection-split": a separate split. */
  by: "user" | "cross-fit" | "selection-split";
  folds?: number;
  criterion: "nll" | "brier";
  verdict: "forced" | "improvement" | "indistinguishable" | "identity" | "degenerate";
  /** The verdict in words. */
  note: string;
}

/** A multi-label label's threshold, chosen on the fit split out-of-fold, with its F1 where the metrics are reported. */
export interface FileLabelThreshold {
  label: string;
  threshold: number;
  /** Items the F1 is measured on. */
  n: number;
  f1: Estimate;
}

/**
 * A multi-label label's calibration where the metrics are reported (the evaluation split, or out-of-fold on the fit
 * split for a run with one split): its probability against its outcome, before and after calibration. ece: equal-width
 * binned ECE of the label (one-vs-rest), bias-corrected with the report's bias-bounded interval; nll: binary log-loss
 * with its percentile interval.
 */
export interface FileLabelMetrics {
  label: string;
  /** Items the metrics are measured on. */
  n: number;
  before: { ece: Estimate; nll: Estimate };
  after: { ece: Estimate; nll: Estimate };
}

/** Decisions answered alone at the escalation threshold where the metrics are reported, and their error. */
export interface FileAnswered {
  share: number;
  /** Error rate of the answered-alone decisions with its Clopper-Pearson interval. */
  error: Estimate;
  /** Items the share is measured on. */
  n: number;
}

/** One question's calibration: method and params, threshold, and metrics before / after as [point, low, high]. */
export interface QuestionCalibration {
  kind: QuestionKind;
  options: string[];
  method: Method;
  params: Record<string, unknown>;
  threshold?: FileThreshold;
  metrics?: {
    before?: Record<string, Estimate>;
    after?: Record<string, Estimate>;
    /** "evaluation split": measured once on untouched data; "cross-fit": out-of-fold estimates on the fit split. */
    estimated_by?: "evaluation split" | "cross-fit";
  };
  /** How the method was selected. */
  selection?: FileSelection;
  /** Degenerate or small fit data, fit warnings: everything a reader must know about the numbers. */
  warnings?: string[];
  /** Multi-label: per-label thresholds (chosen on the fit split out-of-fold, F1 where the metrics are reported). */
  label_thresholds?: FileLabelThreshold[];
  /** Multi-label: each label's calibration before and after, where the metrics are reported. */
  label_metrics?: FileLabelMetrics[];
  /** Multi-label: the share answered alone at the escalation threshold and its error. */
  answered?: FileAnswered;
}

/** A calibration file, version 1: JSON, independent of any language. */
export interface CalibrationFile {
  schema: typeof CALIBRATION_SCHEMA;
  created_at: string;
  source: CalibrationSource;
  questions: Record<string, QuestionCalibration>;
}

/** One problem found in a calibration file: where (a dotted path) and what. */
export interface FileError {
  path: string;
  message: string;
}

/** Thrown by parseCalibrationFile / buildCalibrationFile; `errors` lists every problem found. */
export class CalibrationFileError extends Error {
  readonly code = "INVALID_CALIBRATION_FILE";
  constructor(readonly errors: FileError[]) {
    super(`invalid calibration file: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
    this.name = "CalibrationFileError";
  }
}
