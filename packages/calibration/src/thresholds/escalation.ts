import { checkNonEmpty } from "../input.js";
import { clopperPearsonInterval, clopperPearsonUpper } from "../intervals/clopper-pearson.js";
import { groups, topOf } from "../selective/top.js";
import type { Binary, Labelled, MultiLabel } from "../types.js";

/** Options of the escalation threshold. */
export interface EscalationOptions {
  /** The answered-alone error rate to stay under, e.g. 0.05. */
  targetRisk: number;
  /** "point": empirical error <= target; "upper": its one-sided Clopper-Pearson upper bound <= target. */
  method?: "point" | "upper";
  /** Confidence level of the upper bound and of the verification interval (0.95). */
  level?: number;
  /** The other split, on which the chosen threshold is verified. */
  verify?: Labelled | MultiLabel | Binary;
}

/** Answered-alone counts at one threshold. */
export interface AnsweredStats {
  n: number;
  answered: number;
  errors: number;
  coverage: number;
  risk: number;
}

/** The chosen escalation threshold, how it did where it was chosen, and on the verification split. */
export interface EscalationThreshold {
  targetRisk: number;
  method: "point" | "upper";
  level: number;
  /** Answer alone when confidence >= minConfidence; null when no threshold meets the target (escalate all). */
  minConfidence: number | null;
  chosen: AnsweredStats & { riskUpper: number };
  verified: (AnsweredStats & { interval: [number, number]; withinTarget: boolean }) | null;
}

// The loops over all items are functions of their own with nothing after the loop but its result: V8 compiles a long
// loop while it runs, on the first call, and code after it that needs type feedback (never run then) made every later
// call bail out of the compiled loop.

/** Items at confidence >= t. */
function countAnswered(p: ArrayLike<number>, n: number, t: number): number {
  let answered = 0;
  for (let i = 0; i < n; i++) if (p[i] >= t) answered++;
  return answered;
}

/** Wrong items at confidence >= t. */
function countErrors(p: ArrayLike<number>, y: ArrayLike<number>, n: number, t: number): number {
  let errors = 0;
  for (let i = 0; i < n; i++) if (p[i] >= t && y[i] !== 1) errors++;
  return errors;
}

/** The last group (lowest threshold) whose error rate, or its upper bound, is at most the target; -1 if none. */
function lastQualifying(
  answered: Float64Array,
  errors: Float64Array,
  upper: boolean,
  level: number,
  targetRisk: number,
): number {
  let pick = -1;
  for (let j = 0; j < answered.length; j++) {
    const a = answered[j];
    const e = errors[j];
    const score = upper ? clopperPearsonUpper(e, a, level) : e / a;
    if (score <= targetRisk) pick = j;
  }
  return pick;
}

function answeredAt(p: ArrayLike<number>, y: ArrayLike<number>, n: number, t: number | null): AnsweredStats {
  const answered = t === null ? 0 : countAnswered(p, n, t);
  const errors = t === null ? 0 : countErrors(p, y, n, t);
  return {
    n,
    answered,
    errors,
    coverage: n > 0 ? answered / n : 0,
    risk: answered > 0 ? errors / answered : 0,
  };
}

/**
 * The lowest confidence threshold whose answered-alone error rate stays under a target risk, chosen on one split
 * and verified on another; the conservative variant bounds the error with a one-sided Clopper-Pearson upper bound
 * [Geifman & El-Yaniv 2017, selective risk; Angelopoulos et al. 2021, Learn then Test].
 */
export function escalationThreshold(
  x: Labelled | MultiLabel | Binary,
  opts: EscalationOptions,
): EscalationThreshold {
  const { targetRisk } = opts;
  if (!(targetRisk >= 0 && targetRisk < 1)) {
    throw new RangeError(`escalationThreshold: targetRisk must be in [0, 1), e.g. 0.05; got ${targetRisk}`);
  }
  const method = opts.method ?? "point";
  if (method !== "point" && method !== "upper") {
    throw new RangeError(
      `escalationThreshold: method must be "point" or "upper", got ${JSON.stringify(method)}`,
    );
  }
  const level = opts.level ?? 0.95;
  const { p, y, n } = topOf(x, "escalationThreshold");
  checkNonEmpty(n, "escalationThreshold");
  const g = groups(p, y, n);
  const pick = lastQualifying(g.answered, g.errors, method === "upper", level, targetRisk);
  const minConfidence = pick >= 0 ? g.threshold[pick] : null;
  const chosenStats = answeredAt(p, y, n, minConfidence);
  const chosen = {
    ...chosenStats,
    riskUpper: clopperPearsonUpper(chosenStats.errors, chosenStats.answered, level),
  };
  let verified: EscalationThreshold["verified"] = null;
  if (opts.verify) {
    const v = topOf(opts.verify, "escalationThreshold");
    checkNonEmpty(v.n, "escalationThreshold (verify)");
    const s = answeredAt(v.p, v.y, v.n, minConfidence);
    verified = {
      ...s,
      interval: clopperPearsonInterval(s.errors, s.answered, level),
      withinTarget: s.risk <= targetRisk,
    };
  }
  return { targetRisk, method, level, minConfidence, chosen, verified };
}
