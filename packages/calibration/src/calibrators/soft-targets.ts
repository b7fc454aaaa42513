// The multiclass generalisation of Platt's (1999) target smoothing, for temperature and vector scaling. Internal.

/** Items per gold option (a loop of its own, nothing after it). */
function classCounts(gold: ArrayLike<number>, n: number, counts: Float64Array): void {
  for (let i = 0; i < n; i++) counts[gold[i]]++;
}

/**
 * Smoothed targets per gold option c: tGold[c] = (N_c + 1) / (N_c + 2) on c, tOther[c] = 1 / ((N_c + 2) (k - 1)) on
 * each other option (N_c: fit items with gold c). For two options these are exactly Platt's targets.
 */
export function classTargets(
  gold: ArrayLike<number>,
  n: number,
  k: number,
): { tGold: Float64Array; tOther: Float64Array } {
  const counts = new Float64Array(k);
  classCounts(gold, n, counts);
  const tGold = new Float64Array(k);
  const tOther = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    tGold[c] = (counts[c] + 1) / (counts[c] + 2);
    tOther[c] = k > 1 ? 1 / ((counts[c] + 2) * (k - 1)) : 0;
  }
  return { tGold, tOther };
}
