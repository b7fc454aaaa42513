import { bootstrapRuns } from "../bootstrap/engine.js";
import { isMultiLabel } from "../input.js";
import { ece } from "../metrics/ece.js";
import { runItems } from "../report/items.js";
import type { Labelled, MultiLabel } from "../types.js";
import { multiLabelTop, topLabelUnchecked } from "../views.js";
import { applyQuestion } from "./apply.js";
import { answeredError } from "./build.js";
import type { CalibrationFile } from "./schema.js";

/** Why a check failed. */
export interface CheckReason {
  code: "fingerprint-changed" | "served-by-changed" | "ece-outside" | "answered-error-outside";
  question?: string;
  message: string;
}

/** One question re-measured under the file's calibration. */
export interface QuestionCheck {
  n: number;
  /**
   * The run's calibrated ECE as the file's interval estimates it: bias-corrected, 2 x plug-in - mean of 200 bootstrap
   * replicates, floored at 0 (the plug-in overestimates, the more so the smaller the run).
   */
  ece: number;
  /** The plug-in calibrated ECE. */
  ecePlugin: number;
  eceInterval: [number, number] | null;
  answeredError: number | null;
  answeredErrorInterval: [number, number] | null;
  coverage: number;
  ok: boolean;
}

/** The verdict of checking a new run against a calibration file (ok = false: refit). */
export interface CheckResult {
  ok: boolean;
  reasons: CheckReason[];
  /** Values below their interval when not failing on them (better than recorded, e.g. a larger run). */
  notes: string[];
  questions: Record<string, QuestionCheck>;
  /** Questions of the file the run did not cover (not checked). */
  skipped: string[];
}

/** A new run of the same service: its fingerprint, the model versions that answered, and predictions per question. */
export interface RunToCheck {
  fingerprint: string;
  servedBy?: string[];
  questions: Record<string, Labelled | MultiLabel>;
}

/**
 * Checks a new run against a calibration file: fails when the served model changed (fingerprint or served_by), or
 * when a question's calibrated ECE (bias-corrected, the estimator of the file's bias-aware interval, so that a small
 * run's upward-biased plug-in does not fail it) or answered-alone error rises above the interval the file recorded
 * (with `twoSided`, also when it falls below; otherwise that is only noted).
 */
export function checkCalibration(
  file: CalibrationFile,
  run: RunToCheck,
  opts: { bins?: number; twoSided?: boolean } = {},
): CheckResult {
  const reasons: CheckReason[] = [];
  const notes: string[] = [];
  const twoSided = opts.twoSided ?? false;
  if (run.fingerprint !== file.source.fingerprint) {
    reasons.push({
      code: "fingerprint-changed",
      message: `the run's fingerprint ${run.fingerprint} differs from the file's ${file.source.fingerprint}`,
    });
  }
  if (run.servedBy) {
    const was = [...new Set(file.source.served_by)].sort();
    const now = [...new Set(run.servedBy)].sort();
    if (was.join("\u0000") !== now.join("\u0000")) {
      reasons.push({
        code: "served-by-changed",
        message: `the run was served by [${now.join(", ")}], the file was fitted on [${was.join(", ")}]: the service swapped its weights`,
      });
    }
  }
  for (const name of Object.keys(run.questions)) {
    if (!file.questions[name]) {
      throw new RangeError(
        `checkCalibration: the file has no question ${JSON.stringify(name)} to check the run against`,
      );
    }
  }
  const questions: Record<string, QuestionCheck> = {};
  const skipped: string[] = [];
  for (const [name, q] of Object.entries(file.questions)) {
    const d = run.questions[name];
    if (!d) {
      skipped.push(name);
      continue;
    }
    const after = { ...d, probs: applyQuestion(q, d, name) } as Labelled | MultiLabel;
    const n = after.probs.length / after.k;
    const top = isMultiLabel(after)
      ? multiLabelTop(after)
      : topLabelUnchecked(after.probs, n, after.k, (after as Labelled).gold);
    const bins = opts.bins ?? 15;
    const plugin = ece(top, { bins });
    const reps = bootstrapRuns([runItems(after, "checkCalibration")], bins, 200, 0)[0].ece;
    let mean = 0;
    for (let r = 0; r < reps.length; r++) mean += reps[r] / reps.length;
    const e = Math.max(0, 2 * plugin - mean);
    const rec = q.metrics?.after ?? {};
    const eceI = rec.ece ? ([rec.ece[1], rec.ece[2]] as [number, number]) : null;
    const minConfidence = q.threshold ? q.threshold.min_confidence : null;
    const a = answeredError(after, minConfidence, 0.95);
    const aI = rec.answered_error
      ? ([rec.answered_error[1], rec.answered_error[2]] as [number, number])
      : null;
    let ok = true;
    const judge = (code: CheckReason["code"], what: string, v: number, iv: [number, number]) => {
      if (v >= iv[0] && v <= iv[1]) return;
      const above = v > iv[1];
      const message = `${name}: ${what} ${v.toFixed(4)} is ${above ? "above" : "below"} the file's interval [${iv[0].toFixed(4)}, ${iv[1].toFixed(4)}]`;
      if (above || twoSided) {
        ok = false;
        reasons.push({ code, question: name, message });
      } else notes.push(message);
    };
    if (eceI) judge("ece-outside", "calibrated ECE", e, eceI);
    const ae = a.error ? a.error[0] : null;
    if (aI && ae !== null)
      judge("answered-error-outside", `answered-alone error at confidence >= ${minConfidence}`, ae, aI);
    questions[name] = {
      n,
      ece: e,
      ecePlugin: plugin,
      eceInterval: eceI,
      answeredError: ae,
      answeredErrorInterval: aI,
      coverage: a.coverage,
      ok,
    };
  }
  return { ok: reasons.length === 0, reasons, notes, questions, skipped };
}
