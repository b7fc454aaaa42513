import {
  type CalibrationFile,
  checkCalibration,
  type Labelled,
  type MultiLabel,
} from "@decision-workbench/calibration";
import type { RunCheck } from "../shapes/calibrations.js";
import type { ItemData } from "./matrix.js";
import { libraryData } from "./views.js";

/** Problems that make a file unusable for a run's items (kind or options differ); empty when it fits. */
/** A run's check without the run id and split, which the route adds. */
type CheckReport = Omit<RunCheck, "runId" | "split">;

function fileMismatches(file: CalibrationFile, items: Map<string, ItemData>): string[] {
  const out: string[] = [];
  for (const [name, q] of Object.entries(file.questions)) {
    const d = items.get(name);
    if (!d) continue;
    const kindOk = (q.kind === "multi") === d.multi;
    if (!kindOk || q.options.join("\u0000") !== d.columns.join("\u0000")) {
      out.push(
        `question ${name}: the file has ${q.kind} options [${q.options.join(", ")}], the run's item has ${d.spec.kind} options [${d.columns.join(", ")}]`,
      );
    }
  }
  return out;
}

/**
 * Checks a run's predictions against a calibration file with the calibration library: fails when the served model
 * changed (fingerprint or the models that answered) or when an item's calibrated ECE or answered-alone error left
 * the interval the file recorded. `items` are the run's items restricted to the split being checked.
 */
export function checkRun(
  file: CalibrationFile,
  run: { fingerprint: string; servedBy: string[] },
  items: Map<string, ItemData>,
  opts: { bins?: number } = {},
): CheckReport {
  const mismatches = fileMismatches(file, items);
  if (mismatches.length > 0) throw new RangeError(mismatches.join("; "));
  const questions: Record<string, Labelled | MultiLabel> = {};
  for (const name of Object.keys(file.questions)) {
    const d = items.get(name);
    if (d && d.m > 0) questions[name] = libraryData(d);
  }
  const r = checkCalibration(file, { fingerprint: run.fingerprint, servedBy: run.servedBy, questions }, opts);
  const details: CheckReport["details"] = [...r.reasons];
  if (Object.keys(questions).length === 0) {
    details.push({
      code: "nothing-checked",
      message: `the run has no usable predictions for any of the file's questions (${Object.keys(file.questions).join(", ")})`,
    });
  }
  return {
    ok: details.length === 0,
    reasons: details.map((x) => x.message),
    details,
    questions: r.questions,
    skipped: [...r.skipped],
    servedBy: run.servedBy,
  };
}
