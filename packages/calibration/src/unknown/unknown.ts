import { checkLabelled, checkNonEmpty } from "../input.js";
import type { Labelled } from "../types.js";
import { argmaxUnchecked } from "../views.js";

/** Unknown ("not stated") as an abstention: rates, precision / recall, and the risk on answered items. */
export interface UnknownStats {
  n: number;
  predictedRate: number;
  goldRate: number;
  precision: number;
  recall: number;
  f1: number;
  /** Items not predicted Unknown. */
  answered: number;
  coverage: number;
  /** Error rate among the items not predicted Unknown (null when there are none). */
  answeredRisk: number | null;
}

/**
 * Unknown analytics from per-item flags: predicted Unknown, gold Unknown, and whether the answer was right
 * [Chow 1970 reject option; El-Yaniv & Wiener 2010].
 */
export function unknownStats(flags: {
  predicted: ArrayLike<number | boolean>;
  gold: ArrayLike<number | boolean>;
  correct: ArrayLike<number | boolean>;
}): UnknownStats {
  const n = flags.predicted.length;
  if (flags.gold.length !== n || flags.correct.length !== n) {
    throw new RangeError(
      `unknownStats: predicted (${n}), gold (${flags.gold.length}) and correct (${flags.correct.length}) must be equally long`,
    );
  }
  checkNonEmpty(n, "unknownStats");
  let pred = 0;
  let gold = 0;
  let both = 0;
  let answered = 0;
  let wrong = 0;
  for (let i = 0; i < n; i++) {
    const p = Boolean(flags.predicted[i]);
    const g = Boolean(flags.gold[i]);
    if (p) pred++;
    if (g) gold++;
    if (p && g) both++;
    if (!p) {
      answered++;
      if (!flags.correct[i]) wrong++;
    }
  }
  const precision = pred > 0 ? both / pred : 0;
  const recall = gold > 0 ? both / gold : 0;
  return {
    n,
    predictedRate: pred / n,
    goldRate: gold / n,
    precision,
    recall,
    f1: pred + gold > 0 ? (2 * both) / (pred + gold) : 0,
    answered,
    coverage: answered / n,
    answeredRisk: answered > 0 ? wrong / answered : null,
  };
}

/** Unknown analytics of a question whose option `unknownOption` is `not stated` (Unknown when most probable) [Chow 1970]. */
export function unknownAnalytics(d: Labelled, unknownOption: number): UnknownStats {
  const n = checkLabelled(d, "unknownAnalytics");
  if (!Number.isInteger(unknownOption) || unknownOption < 0 || unknownOption >= d.k) {
    throw new RangeError(
      `unknownAnalytics: unknownOption must be an option index in 0..${d.k - 1}, got ${unknownOption}`,
    );
  }
  const pred = argmaxUnchecked(d.probs, n, d.k);
  const predicted = new Uint8Array(n);
  const gold = new Uint8Array(n);
  const correct = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    predicted[i] = pred[i] === unknownOption ? 1 : 0;
    gold[i] = d.gold[i] === unknownOption ? 1 : 0;
    correct[i] = pred[i] === d.gold[i] ? 1 : 0;
  }
  return unknownStats({ predicted, gold, correct });
}
