/** Calibration files in and checks out: reading a pasted or chosen file, the API's file errors, a check's verdict. */

import type { Calibration, FileError, RunCheck } from "@decision-workbench/api/shapes";
import { lineColumn } from "./datasets";
import { pct, when } from "./format";

/** What the import form sends, or why it sends nothing. */
export type ParsedCalibrationText =
  | { ok: true; file: Record<string, unknown> }
  | { ok: false; error: string };

/**
 * Reads the text of a calibration file: it must be a JSON object. Everything else (schema, source, questions) is
 * checked by the API, which lists every problem.
 */
export function parseCalibrationText(text: string): ParsedCalibrationText {
  if (!text.trim())
    return {
      ok: false,
      error:
        "Paste or choose a calibration file: the JSON that “Download calibration file” saves (schema decision-workbench/calibration@1).",
    };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const m = /position (\d+)/.exec(msg);
    const at = m ? lineColumn(text, Number(m[1])) : null;
    return {
      ok: false,
      error: `The file is not valid JSON${at ? ` (line ${at.line}, column ${at.column})` : ""}: ${msg}. A calibration file is one JSON object.`,
    };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    const what = Array.isArray(parsed) ? "a list" : parsed === null ? "null" : `a ${typeof parsed}`;
    return {
      ok: false,
      error: `A calibration file is a JSON object with schema, created_at, source and questions; this is ${what}.`,
    };
  }
  return { ok: true, file: parsed as Record<string, unknown> };
}

/** The `{path, message}` problems of a 400 invalid_calibration_file, in the API's order; other details are dropped. */
export function fileErrors(details: unknown[]): FileError[] {
  return details.filter(
    (d): d is FileError =>
      !!d &&
      typeof d === "object" &&
      typeof (d as FileError).message === "string" &&
      typeof (d as FileError).path === "string",
  );
}

/** "questions.species.options: must be a list of strings", or the message alone for the file as a whole. */
export function formatFileError(e: FileError): string {
  return e.path ? `${e.path}: ${e.message}` : e.message;
}

/** A group of the calibration picker. */
export interface CalibrationGroup {
  label: string;
  options: { id: string; label: string }[];
}

/** How a calibration reads in the picker: id, where it comes from, what served it, when. */
function calibrationLabel(c: Calibration, runId: string): string {
  const origin = c.imported || c.runId === null ? "imported" : c.runId === runId ? "this run" : c.runId;
  const served = c.file.source.served_by.join(", ") || "—";
  return `${c.id} · ${origin} · served by ${served} · ${when(c.imported ? c.createdAt : c.file.created_at)}`;
}

/**
 * The calibrations a run can be checked against, newest first: imported files, then those fitted on this run, then
 * those fitted on other runs. Only calibrations of the run's dataset are offered (another dataset's questions are
 * not the run's items).
 */
export function calibrationGroups(
  list: Calibration[],
  run: { id: string; dataset: string },
): CalibrationGroup[] {
  const mine = [...list]
    .filter((c) => c.file.source.dataset.name === run.dataset)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  const groups: [string, Calibration[]][] = [
    ["Imported files", mine.filter((c) => c.imported || c.runId === null)],
    ["Fitted on this run", mine.filter((c) => !c.imported && c.runId === run.id)],
    ["Fitted on other runs", mine.filter((c) => !c.imported && c.runId !== null && c.runId !== run.id)],
  ];
  return groups
    .filter(([, cs]) => cs.length > 0)
    .map(([label, cs]) => ({
      label,
      options: cs.map((c) => ({ id: c.id, label: calibrationLabel(c, run.id) })),
    }));
}

/** Where a re-measured value lies against the interval the file recorded. */
export type Place = "inside" | "above" | "below" | "no interval";

/** The place of `x` against `[lo, hi]`. */
export function placeIn(x: number | null, interval: [number, number] | null): Place {
  if (x === null || !interval) return "no interval";
  if (x > interval[1]) return "above";
  if (x < interval[0]) return "below";
  return "inside";
}

/** One question of a check, formatted. */
export interface CheckRow {
  question: string;
  n: number;
  ece: string;
  eceInterval: string;
  ecePlace: Place;
  answeredError: string;
  answeredErrorInterval: string;
  errorPlace: Place;
  coverage: string;
  ok: boolean;
}

/** A check's verdict as the page shows it. */
export interface CheckVerdict {
  ok: boolean;
  /** One line: what the verdict means for the calibration (the pass / fail badge is `ok`). */
  title: string;
  /** Whether the model versions that answered differ from the file's, and the two lists in words. */
  servedModel: { changed: boolean; text: string };
  /** Whether the endpoint or the model asked for differ from the file's (the scorer fingerprint). */
  fingerprintChanged: boolean;
  /** The API's sentences, one per failure. */
  reasons: string[];
  rows: CheckRow[];
  /** Questions of the file the run has no usable answers for (not checked). */
  skipped: string[];
}

const interval = (i: [number, number] | null) =>
  i ? `${(i[0] * 100).toFixed(1)}–${(i[1] * 100).toFixed(1)}%` : "—";
const list = (xs: string[]) => (xs.length ? xs.join(", ") : "none named");

/**
 * The verdict of POST /api/runs/:id/check: pass or fail with the API's reasons, whether the served model changed
 * (against the file's `served_by`), and each question's calibrated ECE and answered-alone error against the file's
 * intervals.
 */
export function checkVerdict(report: RunCheck, fileServedBy: string[] | undefined): CheckVerdict {
  const codes = new Set(report.details.map((d) => d.code));
  const changed = codes.has("served-by-changed");
  const run = list(report.servedBy);
  const file = fileServedBy ? list(fileServedBy) : "the file's models";
  const servedText = changed
    ? `Changed: the file was fitted on answers of ${file}; this run was served by ${run}.`
    : `Unchanged: ${run} served this run, as in the file.`;
  const rows: CheckRow[] = Object.entries(report.questions).map(([question, q]) => ({
    question,
    n: q.n,
    ece: pct(q.ece),
    eceInterval: interval(q.eceInterval),
    ecePlace: placeIn(q.ece, q.eceInterval),
    answeredError: pct(q.answeredError),
    answeredErrorInterval: interval(q.answeredErrorInterval),
    errorPlace: placeIn(q.answeredError, q.answeredErrorInterval),
    coverage: pct(q.coverage),
    ok: q.ok,
  }));
  const failures = report.reasons.length;
  return {
    ok: report.ok,
    title: report.ok
      ? "The calibration still holds for this run."
      : `Refit the calibration: ${failures} ${failures === 1 ? "reason" : "reasons"} below.`,
    servedModel: { changed, text: servedText },
    fingerprintChanged: codes.has("fingerprint-changed"),
    reasons: report.reasons,
    rows,
    skipped: report.skipped,
  };
}
