import { checkNonEmpty } from "../input.js";
import type { Binary, Labelled, MultiLabel } from "../types.js";
import { groups, topOf } from "./top.js";

/** The risk-coverage curve: answering items at confidence >= threshold gives this coverage and risk. */
export interface RiskCoverage {
  threshold: number[];
  coverage: number[];
  risk: number[];
  /** Area under the curve, ties broken at random in expectation. */
  aurc: number;
}

/**
 * Risk-coverage curve of selective answering by confidence, and its area (AURC: mean over k of the error rate of
 * the k most confident items, tied items in expectation) [El-Yaniv & Wiener 2010; Geifman et al. 2019].
 */
export function riskCoverage(x: Labelled | MultiLabel | Binary): RiskCoverage {
  const { p, y, n } = topOf(x, "riskCoverage");
  checkNonEmpty(n, "riskCoverage");
  const g = groups(p, y, n);
  const m = g.threshold.length;
  const coverage = new Float64Array(m);
  const risk = new Float64Array(m);
  const aurc = curve(g.answered, g.errors, n, coverage, risk);
  return {
    threshold: toNumbers(g.threshold),
    coverage: toNumbers(coverage),
    risk: toNumbers(risk),
    aurc: aurc / n,
  };
}

/** The values as a plain array (Array.from on a typed array goes through its iterator, about five times slower). */
function toNumbers(x: Float64Array): number[] {
  const out = new Array<number>(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i];
  return out;
}

/**
 * Each group's coverage and risk; returns n times the AURC. A loop of its own with nothing after it but its result:
 * V8 compiles a long loop while it runs, on the first call, and code after it that needs type feedback (never run
 * then) made every later call bail out of the compiled loop. It writes typed arrays (see groups in top.ts).
 */
function curve(
  answered: Float64Array,
  errors: Float64Array,
  n: number,
  coverage: Float64Array,
  risk: Float64Array,
): number {
  let aurc = 0;
  let prevA = 0;
  let prevE = 0;
  for (let j = 0; j < answered.length; j++) {
    const a = answered[j];
    const e = errors[j];
    coverage[j] = a / n;
    risk[j] = e / a;
    const rate = (e - prevE) / (a - prevA);
    for (let k = prevA + 1; k <= a; k++) aurc += (prevE + (k - prevA) * rate) / k;
    prevA = a;
    prevE = e;
  }
  return aurc;
}

/** The largest coverage whose answered-alone risk is at most the target, and its threshold [El-Yaniv & Wiener 2010]. */
export function coverageAtRisk(
  x: Labelled | MultiLabel | Binary,
  targetRisk: number,
): { coverage: number; risk: number; threshold: number | null } {
  if (!(targetRisk >= 0 && targetRisk <= 1))
    throw new RangeError(`coverageAtRisk: targetRisk must be in [0, 1], got ${targetRisk}`);
  const { p, y, n } = topOf(x, "coverageAtRisk");
  checkNonEmpty(n, "coverageAtRisk");
  const g = groups(p, y, n);
  let best = { coverage: 0, risk: 0, threshold: null as number | null };
  for (let j = 0; j < g.threshold.length; j++) {
    const r = g.errors[j] / g.answered[j];
    if (r <= targetRisk) best = { coverage: g.answered[j] / n, risk: r, threshold: g.threshold[j] };
  }
  return best;
}

/** The answered-alone risk at the highest threshold answering at least the target coverage [El-Yaniv & Wiener 2010]. */
export function riskAtCoverage(
  x: Labelled | MultiLabel | Binary,
  targetCoverage: number,
): { coverage: number; risk: number; threshold: number } {
  if (!(targetCoverage > 0 && targetCoverage <= 1)) {
    throw new RangeError(`riskAtCoverage: targetCoverage must be in (0, 1], got ${targetCoverage}`);
  }
  const { p, y, n } = topOf(x, "riskAtCoverage");
  checkNonEmpty(n, "riskAtCoverage");
  const g = groups(p, y, n);
  for (let j = 0; j < g.threshold.length; j++) {
    if (g.answered[j] >= targetCoverage * n - 1e-9) {
      return { coverage: g.answered[j] / n, risk: g.errors[j] / g.answered[j], threshold: g.threshold[j] };
    }
  }
  const last = g.threshold.length - 1;
  return { coverage: 1, risk: g.errors[last] / n, threshold: g.threshold[last] };
}
