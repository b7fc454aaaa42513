/**
 * Calibration results in words and rows: the candidates simplest first with what the paired rule decided, how the
 * method was selected, where the numbers come from, per-label thresholds and the share answered alone.
 */

import type { Calibration, Candidate } from "@decision-workbench/api/shapes";
import { SIMPLICITY_ORDER } from "@decision-workbench/calibration";
import { pct, sig } from "./format";

/** A calibration method's name. */
export type MethodName = Candidate["method"];

/** What each method is, for the picker. */
export const METHOD_LABELS: Record<MethodName, string> = {
  identity: "identity (no change)",
  temperature: "temperature scaling",
  platt: "Platt scaling",
  vector: "vector scaling",
  beta: "beta calibration",
  histogram: "histogram binning",
  isotonic: "isotonic regression",
};

/** The methods a fit can force on these items: every one, except vector scaling when an item is multi-label. */
export function methodChoices(kinds: string[]): MethodName[] {
  const multi = kinds.includes("multi");
  return SIMPLICITY_ORDER.filter((m) => !(multi && m === "vector"));
}

const signed = (x: number, digits = 3) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}`;

/** One candidate row: the candidate and what the paired rule made of it, in words. */
export interface CandidateRow extends Candidate {
  /** "kept", "replaced platt", "indistinguishable from platt", "not tried: …", "fit failed: …". */
  outcome: string;
}

/** Candidates of an item simplest first (the order the rule walks), each with its outcome; failed fits last. */
export function candidateRows(candidates: Candidate[]): CandidateRow[] {
  const order = (c: Candidate) =>
    (c.heldOut ? 0 : 100) + Math.max(0, SIMPLICITY_ORDER.indexOf(c.method as MethodName));
  return [...candidates].sort((a, b) => order(a) - order(b)).map((c) => ({ ...c, outcome: outcomeOf(c) }));
}

function outcomeOf(c: Candidate): string {
  if (!c.heldOut) return c.error ?? "not scored";
  if (c.method === "identity") return c.accepted ? "the starting point, kept" : "the starting point";
  if (!c.improvement || !c.against) return c.accepted ? "kept" : "—";
  const gain = `NLL gain ${signed(c.improvement[0])} (95% CI ${signed(c.improvement[1])} to ${signed(c.improvement[2])})`;
  if (c.accepted) return `replaced ${c.against}: ${gain}`;
  if (c.improvement[2] < 0) return `worse than ${c.against}: ${gain}`;
  if (c.improvement[1] > 0) return `better than ${c.against}, but not kept: ${gain}`;
  return `indistinguishable from ${c.against}: ${gain}`;
}

/** The newest calibration of a list (the API lists newest first; this does not rely on it). */
export function newest<T extends { createdAt: string }>(list: T[] | undefined): T | undefined {
  let best: T | undefined;
  for (const c of list ?? []) if (!best || c.createdAt > best.createdAt) best = c;
  return best;
}

/**
 * The chosen method, its parameters (numbers to 3 significant digits: "a = 1.23, b = −0.0456"; "" when none) and
 * the escalation threshold of one question of the file.
 */
export function chosenSummary(
  cal: Calibration,
  item: string,
): {
  method: string;
  params: string;
  targetRisk: number | null;
  minConfidence: number | null;
} | null {
  const q = cal.file.questions[item];
  if (!q) return null;
  const params = Object.entries(q.params ?? {})
    .filter(([, v]) => typeof v === "number" || typeof v === "string" || typeof v === "boolean")
    .map(([k, v]) => `${k} = ${typeof v === "number" ? sig(v).replace("-", "−") : v}`)
    .join(", ");
  return {
    method: q.method,
    params,
    targetRisk: q.threshold?.target_risk ?? null,
    minConfidence: q.threshold?.min_confidence ?? null,
  };
}

/** Items of a calibration, in the order of its candidates. */
export function calibrationItems(cal: Calibration): string[] {
  const names = Object.keys(cal.candidates);
  for (const q of Object.keys(cal.file.questions)) if (!names.includes(q)) names.push(q);
  return names;
}

/**
 * Where an item's numbers come from: "fitted on calibration (n = 412), method chosen by 5-fold cross-fit on
 * calibration, evaluated once on test (n = 398)". Null for an imported file (it says only its source's splits).
 */
export function provenance(cal: Calibration, item: string): string | null {
  const f = cal.fit;
  const n = f?.n[item];
  const s = cal.selection?.[item];
  if (!f || !n) return null;
  if (!s) {
    // stored by a version that compared candidates on the split it then reported on
    return f.evalSplit === "crossfit"
      ? `fitted on ${f.fitSplit} (n = ${n.fit}), method chosen and after-metrics estimated on the same out-of-fold rows (a calibration from an older version)`
      : `fitted on ${f.fitSplit} (n = ${n.fit}), method chosen on ${f.evalSplit}, the split its after-metrics are reported on (n = ${n.eval}; a calibration from an older version: refit it for untouched numbers)`;
  }
  const how =
    s.by === "user"
      ? `method ${cal.file.questions[item]?.method ?? ""} forced by the user`
      : s.by === "selection-split"
        ? `method chosen on the separate ${s.on} split (n = ${n.selection ?? "?"})`
        : `method chosen by ${s.folds ?? f.folds ?? 5}-fold cross-fit on ${f.fitSplit}`;
  const where =
    f.estimatedBy === "cross-fit"
      ? `after-metrics are out-of-fold cross-fit estimates on ${f.fitSplit} (n = ${n.eval}), not untouched held-out data`
      : `evaluated once on ${f.evalSplit} (n = ${n.eval})`;
  return `fitted on ${f.fitSplit} (n = ${n.fit}), ${how}, ${where}`;
}

/** What the verdict means, for its badge. */
export const VERDICT_LABELS: Record<string, string> = {
  forced: "forced by you",
  improvement: "clear improvement",
  indistinguishable: "indistinguishable",
  identity: "identity kept",
  degenerate: "degenerate data",
};

/**
 * The share answered alone at the escalation threshold next to the error it buys: "escalate below 0.949: 8.0 %
 * answered alone (n = 398), error 4.1 % (95 % CI 1.2–9.8 %)". Null without a threshold.
 */
export function answeredSentence(cal: Calibration, item: string): string | null {
  const q = cal.file.questions[item];
  if (!q?.threshold) return null;
  const t = q.threshold.min_confidence;
  if (t === null)
    return `no threshold keeps the error under ${pct(q.threshold.target_risk, 0)}: escalate everything`;
  const after = q.metrics?.after;
  const share = q.answered?.share ?? after?.coverage?.[0];
  const error = q.answered?.error ?? after?.answered_error;
  const n = q.answered?.n ?? cal.fit?.n[item]?.eval;
  if (share === undefined) return `escalate below ${t.toFixed(3)}`;
  const err = error
    ? `, error ${pct(error[0])} (95% CI ${pct(error[1])}–${pct(error[2])})`
    : ", nothing answered alone";
  return `escalate below ${t.toFixed(3)}: ${pct(share)} answered alone${n !== undefined ? ` (n = ${n})` : ""}${err}`;
}
