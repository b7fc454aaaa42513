import { subset } from "../bootstrap/bootstrap.js";
import { mulberry32 } from "../bootstrap/random.js";
import { NothingLearnedError } from "../errors.js";
import { checkLabelled, checkMultiLabel, isMultiLabel } from "../input.js";
import type { Labelled, MultiLabel, ProbMatrix } from "../types.js";
import type { Calibrator } from "./types.js";

/** Out-of-fold calibrated probabilities, the fold of each item and the params fitted without each fold. */
export interface CrossFitResult<P> {
  probs: Float64Array;
  folds: Int32Array;
  params: P[];
}

/**
 * The fold (0 to folds - 1) of each of n items: a seeded shuffle (Fisher-Yates, mulberry32(seed)), then position
 * modulo `folds`, so fold sizes differ by at most one. crossFit's assignment.
 */
export function assignFolds(n: number, folds: number, seed: number): Int32Array {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`assignFolds: n must be an item count (integer >= 0), got ${n}`);
  if (!Number.isInteger(folds) || folds < 2)
    throw new RangeError(`assignFolds: folds must be an integer >= 2, got ${folds}`);
  const rng = mulberry32(seed);
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    const t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  const fold = new Int32Array(n);
  for (let i = 0; i < n; i++) fold[perm[i]] = i % folds;
  return fold;
}

/**
 * k-fold cross-fitting: every item is calibrated by params fitted on the other folds, so the calibrated
 * probabilities of all items are held out (5 folds, seed 0 by default) [Chernozhukov et al. 2018; Kull et al. 2019].
 */
export function crossFit<D extends Labelled | MultiLabel, P>(
  cal: Calibrator<D, P, ProbMatrix>,
  data: D,
  opts: { folds?: number; seed?: number } = {},
): CrossFitResult<P> {
  const n = isMultiLabel(data)
    ? checkMultiLabel(data, "crossFit")
    : checkLabelled(data as Labelled, "crossFit");
  if (n === 0) throw new NothingLearnedError();
  const folds = opts.folds ?? 5;
  if (!Number.isInteger(folds) || folds < 2)
    throw new RangeError(`crossFit: folds must be an integer >= 2, got ${folds}`);
  if (n < folds)
    throw new RangeError(`crossFit: ${n} items cannot be split into ${folds} folds; use fewer folds`);
  const fold = assignFolds(n, folds, opts.seed ?? 0);
  const k = data.k;
  const probs = new Float64Array(n * k);
  const params: P[] = [];
  for (let f = 0; f < folds; f++) {
    const train: number[] = [];
    const test: number[] = [];
    for (let i = 0; i < n; i++) (fold[i] === f ? test : train).push(i);
    const p = cal.fit(subset(data, train));
    params.push(p);
    const held = subset(data, test);
    const q = cal.apply(p, { probs: held.probs, k });
    for (let r = 0; r < test.length; r++) probs.set(q.subarray(r * k, r * k + k), test[r] * k);
  }
  return { probs, folds: fold, params };
}
