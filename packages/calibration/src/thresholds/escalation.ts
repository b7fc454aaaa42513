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

function answeredAt(p: ArrayLike<number>, y: ArrayLike<number>, n: number, t: number | null): AnsweredStats {
  let answered = 0;
  let errors = 0;
  if (t !== null) {
    for (let i = 0; i < n; i++) {
      if (p[i] >= t) {
        answered++;
        if (y[i] !== 1) errors++;
      }
    }
  }
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
  let pick = -1;
  for (let j = 0; j < g.threshold.length; j++) {
    const a = g.answered[j];
    const e = g.errors[j];
    const score = method === "point" ? e / a : clopperPearsonUpper(e, a, level);
    if (score <= targetRisk) pick = j;
  }
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
