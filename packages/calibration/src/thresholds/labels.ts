import { checkMultiLabel, checkNonEmpty } from "../input.js";
import type { MultiLabel } from "../types.js";

/** What a label threshold maximises: F1, F-beta, or precision subject to a recall floor. */
export type LabelObjective = "f1" | { fbeta: number } | { recallFloor: number };

/** One label's chosen threshold and its scores, against the fixed 0.5. */
export interface LabelThreshold {
  /** Choose the label when p >= threshold; null when no threshold qualifies (e.g. no positive items). */
  threshold: number | null;
  score: number;
  precision: number;
  recall: number;
  /** The objective at the fixed threshold 0.5. */
  scoreAtHalf: number;
  /** For F1 only: half the best F1, the F1-optimal threshold of calibrated probabilities [Lipton et al. 2014]. */
  liptonThreshold: number | null;
}

function fbeta(tp: number, fp: number, fn: number, beta: number): number {
  const b2 = beta * beta;
  const den = (1 + b2) * tp + b2 * fn + fp;
  return den > 0 ? ((1 + b2) * tp) / den : 0;
}

function scoreAt(tp: number, fp: number, fn: number, obj: LabelObjective): number {
  if (obj === "f1") return fbeta(tp, fp, fn, 1);
  if ("fbeta" in obj) return fbeta(tp, fp, fn, obj.fbeta);
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  return recall >= obj.recallFloor && tp + fp > 0 ? tp / (tp + fp) : 0;
}

/**
 * Per-label thresholds for multi-label questions maximising F1, F-beta, or precision at a recall floor, scanned over
 * every distinct probability, reported against the fixed 0.5 [Lipton, Elkan & Naryanaswamy 2014].
 */
export function labelThresholds(d: MultiLabel, objective: LabelObjective = "f1"): LabelThreshold[] {
  const n = checkMultiLabel(d, "labelThresholds");
  checkNonEmpty(n, "labelThresholds");
  if (objective !== "f1") {
    if ("fbeta" in objective && !(objective.fbeta > 0)) {
      throw new RangeError(`labelThresholds: fbeta must be positive, got ${objective.fbeta}`);
    }
    if ("recallFloor" in objective && !(objective.recallFloor >= 0 && objective.recallFloor <= 1)) {
      throw new RangeError(`labelThresholds: recallFloor must be in [0, 1], got ${objective.recallFloor}`);
    }
    if (!("fbeta" in objective) && !("recallFloor" in objective)) {
      throw new TypeError('labelThresholds: objective must be "f1", { fbeta } or { recallFloor }');
    }
  }
  const out: LabelThreshold[] = [];
  for (let j = 0; j < d.k; j++) out.push(labelThreshold(d.probs, d.labels, n, d.k, j, objective));
  return out;
}

// Each loop over all items below is a function of its own with nothing after the loop but its result: V8 compiles a
// long loop while it runs, on the first call, and code after it that needs type feedback (never run then) made every
// later call (here: every label) bail out of the compiled loop. They fill typed arrays, not empty arrays that grow
// from small integers to doubles (a hidden-class change on every call).

function labelThreshold(
  probs: Float64Array,
  labels: ArrayLike<number>,
  n: number,
  k: number,
  j: number,
  objective: LabelObjective,
): LabelThreshold {
  const p = new Float64Array(n);
  const y = new Float64Array(n);
  const positives = column(probs, labels, k, j, p, y);
  const tpHalf = positivesAtHalf(p, y);
  const fpHalf = chosenAtHalf(p) - tpHalf;
  const scoreAtHalf = scoreAt(tpHalf, fpHalf, positives - tpHalf, objective);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[b] - p[a]);
  const best = scan(p, y, order, positives, objective, scoreAtHalf);
  if (objective === "f1" && best.threshold !== null) best.liptonThreshold = best.score / 2;
  return best;
}

/** Label j's probabilities and labels into p and y; returns its positives. */
function column(
  probs: Float64Array,
  labels: ArrayLike<number>,
  k: number,
  j: number,
  p: Float64Array,
  y: Float64Array,
): number {
  let positives = 0;
  for (let i = 0; i < p.length; i++) {
    p[i] = probs[i * k + j];
    y[i] = labels[i * k + j];
    positives += labels[i * k + j];
  }
  return positives;
}

/** Items chosen at 0.5. */
function chosenAtHalf(p: Float64Array): number {
  let c = 0;
  for (let i = 0; i < p.length; i++) if (p[i] >= 0.5) c++;
  return c;
}

/** Positive items chosen at 0.5. */
function positivesAtHalf(p: Float64Array, y: Float64Array): number {
  let c = 0;
  for (let i = 0; i < p.length; i++) if (p[i] >= 0.5 && y[i] === 1) c++;
  return c;
}

/** The best threshold over every distinct probability, most probable first. */
function scan(
  p: Float64Array,
  y: Float64Array,
  order: number[],
  positives: number,
  objective: LabelObjective,
  scoreAtHalf: number,
): LabelThreshold {
  const n = p.length;
  let tp = 0;
  let fp = 0;
  let best: LabelThreshold = {
    threshold: null,
    score: 0,
    precision: 0,
    recall: 0,
    scoreAtHalf,
    liptonThreshold: null,
  };
  for (let r = 0; r < n; r++) {
    const i = order[r];
    if (y[i] === 1) tp++;
    else fp++;
    if (r < n - 1 && p[order[r + 1]] === p[i]) continue;
    const s = scoreAt(tp, fp, positives - tp, objective);
    if (positives > 0 && s > best.score) {
      best = {
        threshold: p[i],
        score: s,
        precision: tp / (tp + fp),
        recall: tp / positives,
        scoreAtHalf,
        liptonThreshold: null,
      };
    }
  }
  return best;
}
