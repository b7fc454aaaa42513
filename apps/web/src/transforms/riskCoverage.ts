/** Risk-coverage curve and the escalation threshold picker. */

import type { Rate, RiskPoint } from "@decision-workbench/api/shapes";
import { niceTicks } from "./axis";
import { wilsonRate } from "./format";

/** One point in percent units. */
export interface PercentPoint {
  threshold: number;
  /** Share answered alone (%). */
  coverage: number;
  /** Error rate of the answered-alone decisions (%). */
  risk: number;
  /** How many decisions go to a person at this threshold. */
  escalated: number;
}

/** Points sorted by threshold ascending (coverage descending), in percent. */
export function riskCoverageSeries(points: RiskPoint[]): PercentPoint[] {
  return [...points]
    .sort((a, b) => a.threshold - b.threshold)
    .map((p) => ({
      threshold: p.threshold,
      coverage: p.coverage * 100,
      risk: p.risk * 100,
      escalated: p.escalated,
    }));
}

/** The point whose threshold is nearest to `threshold` (ties: the lower threshold); null for no points. */
export function pickPoint(points: PercentPoint[], threshold: number): PercentPoint | null {
  let best: PercentPoint | null = null;
  for (const p of points) {
    if (!best || Math.abs(p.threshold - threshold) < Math.abs(best.threshold - threshold)) best = p;
  }
  return best;
}

/** The lowest threshold whose answered-alone risk stays at or under `targetRisk` (a share), or null. */
export function thresholdForRisk(points: PercentPoint[], targetRisk: number): PercentPoint | null {
  for (const p of points) if (p.coverage > 0 && p.risk <= targetRisk * 100) return p;
  return null;
}

/** What a threshold means for a team: how many go to a person and how wrong the rest are. */
export interface EscalationSummary {
  threshold: number;
  answeredShare: number;
  escalated: number;
  escalatedShare: number;
  risk: number;
  /** The answered-alone error as wrong of answered with its Wilson interval (absent without the usable count). */
  riskRate?: Rate;
}

/**
 * The picker's read-out for one point, `n` decisions in all; `usable` (the measured rows the curve is over) gives
 * the answered-alone error its count and interval: answered = coverage x usable, wrong = risk x answered.
 */
export function escalationSummary(p: PercentPoint, n: number, usable?: number): EscalationSummary {
  const out: EscalationSummary = {
    threshold: p.threshold,
    answeredShare: p.coverage / 100,
    escalated: p.escalated,
    escalatedShare: n ? p.escalated / n : 1 - p.coverage / 100,
    risk: p.risk / 100,
  };
  if (usable !== undefined) {
    const answered = Math.round((p.coverage / 100) * usable);
    out.riskRate = wilsonRate(Math.round((p.risk / 100) * answered), answered);
  }
  return out;
}

/**
 * The error-rate axis (percent): evenly spaced nice ticks from 0 up past the highest risk and the target line, so
 * the target is always drawn ([0, 2, 4, 6], not Recharts' own [0, 2, 4, 5]).
 */
export function riskAxis(
  points: PercentPoint[],
  targetRisk: number,
): { domain: [number, number]; ticks: number[] } {
  const max = Math.max(targetRisk * 100, ...points.map((p) => (Number.isFinite(p.risk) ? p.risk : 0)));
  const ticks = niceTicks(max);
  return { domain: [0, ticks[ticks.length - 1]], ticks };
}
