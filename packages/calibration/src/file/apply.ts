import { calibrator, labelCalibrator } from "../calibrators/registry.js";
import type { Calibrator } from "../calibrators/types.js";
import { rowsOf } from "../input.js";
import type { ProbMatrix } from "../types.js";
import type { CalibrationFile, QuestionCalibration } from "./schema.js";

/** The stored calibrator of a question applied to probabilities (N x K, the question's option order). Internal. */
export function applyQuestion(q: QuestionCalibration, m: ProbMatrix, name: string): Float64Array {
  rowsOf(m, "applyCalibration");
  if (m.k !== q.options.length) {
    throw new RangeError(
      `applyCalibration: question ${name} has ${q.options.length} options (${q.options.join(", ")}) but the probabilities have ${m.k} columns`,
    );
  }
  const cal = (q.kind === "multi" ? labelCalibrator(q.method) : calibrator(q.method)) as Calibrator<
    unknown,
    unknown,
    ProbMatrix
  >;
  return cal.apply(q.params, m);
}

/** Applies a calibration file's fitted calibrator of one question to new probabilities of that question. */
export function applyCalibration(file: CalibrationFile, question: string, m: ProbMatrix): Float64Array {
  const q = file.questions[question];
  if (!q) {
    throw new RangeError(
      `applyCalibration: the file has no question ${JSON.stringify(question)}; it has ${Object.keys(file.questions).join(", ")}`,
    );
  }
  return applyQuestion(q, m, question);
}
