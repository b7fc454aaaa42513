import { checkLabelled, checkNonEmpty } from "../input.js";
import { type RateCount, rateCount } from "../intervals/rate.js";
import type { Labelled } from "../types.js";
import { argmaxUnchecked } from "../views.js";

/**
 * Unknown ("not stated") as an abstention: rates, precision / recall, and the risk on answered items, each also as
 * x of n with a Wilson interval in `counts`.
 */
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
  /**
   * Every rate above as x of n with its 95 % Wilson interval: predictedRate (predicted Unknown of all items), goldRate
   * (gold Unknown of all items), precision (gold Unknown of those predicted Unknown), recall (predicted Unknown of the
   * gold Unknown), coverage (answered of all items), answeredRisk (wrong of the answered).
   */
  counts: {
    predictedRate: RateCount;
    goldRate: RateCount;
    precision: RateCount;
    recall: RateCount;
    coverage: RateCount;
    answeredRisk: RateCount;
  };
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
  const c = new Float64Array(5);
  countFlags(flags.predicted, flags.gold, flags.correct, c);
  const [pred, gold, both, answered, wrong] = c;
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
    counts: {
      predictedRate: rateCount(pred, n),
      goldRate: rateCount(gold, n),
      precision: rateCount(both, pred),
      recall: rateCount(both, gold),
      coverage: rateCount(answered, n),
      answeredRisk: rateCount(wrong, answered),
    },
  };
}

// The loops over all items are functions of their own, of the arrays alone, with nothing after the loop: V8 compiles a
// long loop while it runs, on the first call, and code after it that needs type feedback (never run then) made every
// later call bail out of the compiled loop.

/** Counts into c: predicted Unknown, gold Unknown, both, answered (not predicted Unknown), answered wrongly. */
function countFlags(
  predicted: ArrayLike<number | boolean>,
  gold: ArrayLike<number | boolean>,
  correct: ArrayLike<number | boolean>,
  c: Float64Array,
): void {
  for (let i = 0; i < predicted.length; i++) {
    const p = Boolean(predicted[i]);
    const g = Boolean(gold[i]);
    if (p) c[0]++;
    if (g) c[1]++;
    if (p && g) c[2]++;
    if (!p) {
      c[3]++;
      if (!correct[i]) c[4]++;
    }
  }
}

/** Per-item flags: predicted Unknown, gold Unknown, prediction right. */
function unknownFlags(
  pred: Int32Array,
  goldOption: ArrayLike<number>,
  unknownOption: number,
  predicted: Uint8Array,
  gold: Uint8Array,
  correct: Uint8Array,
): void {
  for (let i = 0; i < pred.length; i++) {
    predicted[i] = pred[i] === unknownOption ? 1 : 0;
    gold[i] = goldOption[i] === unknownOption ? 1 : 0;
    correct[i] = pred[i] === goldOption[i] ? 1 : 0;
  }
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
  unknownFlags(pred, d.gold, unknownOption, predicted, gold, correct);
  return unknownStats({ predicted, gold, correct });
}
