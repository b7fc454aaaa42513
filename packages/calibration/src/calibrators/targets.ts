// Platt's (1999) target smoothing and the degenerate-data warnings of the binary fits. Internal.
//
// Maximum likelihood on 0/1 outcomes runs off to infinite slopes when the outcomes are all one value or separable by
// the score; Platt fits to smoothed targets instead: positives (N+ + 1) / (N+ + 2), negatives 1 / (N- + 2), the
// posterior means of a uniform prior on each class's rate (Laplace's rule of succession). scikit-learn's
// `_sigmoid_calibration` uses exactly these targets.

/** The lowest temperature any fit returns: sharper than p^20 is never learned from finite data. */
export const T_FLOOR = 0.05;

/** Positive outcomes (y = 1). A loop of its own with nothing after it but its result. */
export function countPositives(y: ArrayLike<number>, n: number): number {
  let pos = 0;
  for (let i = 0; i < n; i++) if (y[i] === 1) pos++;
  return pos;
}

/** Platt's targets into t: (pos + 1) / (pos + 2) for positives, 1 / (neg + 2) for negatives. */
function fillTargets(y: ArrayLike<number>, hi: number, lo: number, t: Float64Array): void {
  for (let i = 0; i < t.length; i++) t[i] = y[i] === 1 ? hi : lo;
}

/** Platt's smoothed targets of 0/1 outcomes, and the number of positives. */
export function plattTargets(y: ArrayLike<number>, n: number): { t: Float64Array; pos: number } {
  const pos = countPositives(y, n);
  const t = new Float64Array(n);
  fillTargets(y, (pos + 1) / (pos + 2), 1 / (n - pos + 2), t);
  return { t, pos };
}

/** The range of Platt's targets, [1 / (N- + 2), (N+ + 1) / (N+ + 2)]: where a calibrated probability may go. */
export function targetRange(pos: number, n: number): [number, number] {
  return [1 / (n - pos + 2), (pos + 1) / (pos + 2)];
}

/** Largest score of a negative (out[0]) and smallest of a positive (out[1]). */
function extremes(p: ArrayLike<number>, y: ArrayLike<number>, n: number, out: Float64Array): void {
  let maxNeg = Number.NEGATIVE_INFINITY;
  let minPos = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const v = p[i];
    if (y[i] === 1) {
      if (v < minPos) minPos = v;
    } else if (v > maxNeg) maxNeg = v;
    out[0] = maxNeg;
    out[1] = minPos;
  }
}

/**
 * Warnings of a binary fit on degenerate data: every outcome the same, or the outcomes separable by p (every negative
 * below every positive). `what` names the fit and what the smoothing does for it.
 */
export function degenerateWarnings(
  p: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  pos: number,
): string[] {
  if (pos === n || pos === 0) {
    return [
      `every outcome is ${pos === 0 ? 0 : 1} (${n} items): degenerate fit data; Platt's target smoothing keeps the fit finite, identity is the safer choice`,
    ];
  }
  const ext = new Float64Array(2);
  extremes(p, y, n, ext);
  if (ext[0] < ext[1]) {
    return [
      `the outcomes are separable by the probability (every negative at most ${ext[0].toPrecision(3)}, every positive at least ${ext[1].toPrecision(3)}): degenerate fit data; Platt's target smoothing keeps the fit finite, identity is the safer choice`,
    ];
  }
  return [];
}
