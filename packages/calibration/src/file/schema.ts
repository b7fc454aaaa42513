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
}

/** One question's calibration: method and params, threshold, and metrics before / after as [point, low, high]. */
export interface QuestionCalibration {
  kind: QuestionKind;
  options: string[];
  method: Method;
  params: Record<string, unknown>;
  threshold?: FileThreshold;
  metrics?: { before?: Record<string, Estimate>; after?: Record<string, Estimate> };
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
