import {
  type Binary,
  type Labelled,
  riskCoverage,
  unknownAnalytics,
  unknownStats,
} from "@decision-workbench/calibration";
import type { RiskPoint, UnknownReport } from "../shapes/reports.js";
import type { ItemData } from "./matrix.js";
import { rateOf } from "./rates.js";

/** Evenly spaced indices (at most `max`, first and last included) of a list of length `len`. */
export function sampleIndices(len: number, max: number): number[] {
  if (len <= max) return Array.from({ length: len }, (_, i) => i);
  const out: number[] = [];
  for (let i = 0; i < max; i++) {
    const j = Math.round((i * (len - 1)) / (max - 1));
    if (out.length === 0 || out[out.length - 1] !== j) out.push(j);
  }
  return out;
}

/** The risk-coverage curve (at most `points` points) and its area, from the top-label view. */
export function riskCoverageCurve(
  top: Binary,
  serviceEscalated: number,
  points = 101,
): { riskCoverage: RiskPoint[]; aurc: number | null } {
  const n = top.p.length;
  if (n === 0) return { riskCoverage: [], aurc: null };
  const rc = riskCoverage(top);
  const out: RiskPoint[] = [];
  for (const j of sampleIndices(rc.threshold.length, points)) {
    out.push({
      threshold: rc.threshold[j],
      coverage: rc.coverage[j],
      risk: rc.risk[j],
      escalated: Math.round(n - rc.coverage[j] * n) + serviceEscalated,
    });
  }
  return { riskCoverage: out, aurc: rc.aurc };
}

/** Unknown analytics of an item that allows `not stated` (null when it does not, or nothing is usable). */
export function unknownReport(d: ItemData, top: Binary): UnknownReport | null {
  if (!d.spec.notStated || d.m === 0) return null;
  const s = d.multi
    ? unknownStats({ predicted: d.predUnknown, gold: d.goldUnknown, correct: top.y })
    : unknownAnalytics({ probs: d.probs, k: d.k, gold: d.gold } as Labelled, d.k - 1);
  const c = s.counts;
  const predicted = c.predictedRate.x;
  const gold = c.goldRate.x;
  const rate = (r: { x: number; n: number }) => rateOf(r.x, r.n);
  return {
    predictedRate: s.predictedRate,
    goldRate: s.goldRate,
    precision: predicted > 0 ? s.precision : null,
    recall: gold > 0 ? s.recall : null,
    f1: s.f1,
    riskAnswered: s.answeredRisk,
    predicted,
    gold,
    rates: {
      predicted: rate(c.predictedRate),
      gold: rate(c.goldRate),
      precision: rate(c.precision),
      recall: rate(c.recall),
      riskAnswered: rate(c.answeredRisk),
    },
  };
}
