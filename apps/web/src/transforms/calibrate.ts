/** Calibration results: candidates side by side, the chosen method and threshold, before/after. */

import type { Calibration, Candidate } from "../api/types";

/** One candidate row, ranked. */
export interface CandidateRow extends Candidate {
  rank: number;
}

/** Candidates of an item ordered by the selection score (held-out NLL or Brier); failed fits last. */
export function candidateRows(candidates: Candidate[], select: "nll" | "brier" = "nll"): CandidateRow[] {
  const score = (c: Candidate) => (c.heldOut ? c.heldOut[select][0] : Number.POSITIVE_INFINITY);
  return [...candidates]
    .sort((a, b) => score(a) - score(b) || a.method.localeCompare(b.method))
    .map((c, i) => ({ ...c, rank: i + 1 }));
}

/** The newest calibration of a list (the API lists newest first; this does not rely on it). */
export function newest<T extends { createdAt: string }>(list: T[] | undefined): T | undefined {
  let best: T | undefined;
  for (const c of list ?? []) if (!best || c.createdAt > best.createdAt) best = c;
  return best;
}

/** The chosen method, its parameters and the escalation threshold of one question of the file. */
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
    .map(([k, v]) => `${k} = ${typeof v === "number" ? Number(v.toPrecision(4)) : v}`)
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
