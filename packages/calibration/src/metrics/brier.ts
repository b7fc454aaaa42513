import { binSums } from "../binning/accumulate.js";
import { checkBinary, checkBins, checkLabelled, checkNonEmpty } from "../input.js";
import type { Binary, Binning, Labelled } from "../types.js";
import { classViewUnchecked } from "../views.js";

/** Multiclass Brier score: mean over items of sum_j (p_ij - [gold_i = j])^2 [Brier 1950]. */
export function brier(d: Labelled): number {
  const n = checkLabelled(d, "brier");
  checkNonEmpty(n, "brier");
  return brierTotal(d.probs, n, d.k, d.gold) / n;
}

// The loops over all items are functions of their own with nothing after the loop but its result: V8 compiles a long
// loop while it runs, on the first call, and code after it that needs type feedback (never run then) made every later
// call bail out of the compiled loop.

/** Sum over rows of sum_j (p_ij - [gold_i = j])^2. */
function brierTotal(probs: Float64Array, n: number, k: number, gold: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let s = 0;
    for (let j = 0; j < k; j++) {
      const e = probs[base + j] - (gold[i] === j ? 1 : 0);
      s += e * e;
    }
    total += s;
  }
  return total;
}

/** Sum of (y_i - p_i)^2. */
function squaredErrors(p: ArrayLike<number>, y: ArrayLike<number>, n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += (y[i] - p[i]) ** 2;
  return total;
}

/** Sum of y_i. */
function outcomes(y: ArrayLike<number>, n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += y[i];
  return total;
}

/** Binary Brier score: mean of (p - y)^2, scikit-learn's brier_score_loss [Brier 1950]. */
export function binaryBrier(b: Binary): number {
  const n = checkBinary(b, "binaryBrier");
  checkNonEmpty(n, "binaryBrier");
  return squaredErrors(b.p, b.y, n) / n;
}

/** Brier score = reliability - resolution + uncertainty (+ residual: the within-bin variation binning hides). */
export interface BrierDecomposition {
  brier: number;
  reliability: number;
  resolution: number;
  uncertainty: number;
  residual: number;
}

function binaryDecomposition(b: Binary, n: number, bins: number, binning: Binning): BrierDecomposition {
  const s = binSums(b, n, bins, binning);
  const base = outcomes(b.y, n) / n;
  const score = squaredErrors(b.p, b.y, n) / n;
  let reliability = 0;
  let resolution = 0;
  for (let i = 0; i < bins; i++) {
    const c = s.count[i];
    if (c === 0) continue;
    const conf = s.sumP[i] / c;
    const freq = s.sumY[i] / c;
    reliability += (c / n) * (conf - freq) ** 2;
    resolution += (c / n) * (freq - base) ** 2;
  }
  const uncertainty = base * (1 - base);
  return {
    brier: score,
    reliability,
    resolution,
    uncertainty,
    residual: score - (reliability - resolution + uncertainty),
  };
}

/**
 * Murphy decomposition of the Brier score over reliability bins (15, equal-width); for multiclass predictions the
 * components are summed over the one-vs-rest problems [Murphy 1973].
 */
export function brierDecomposition(
  x: Binary | Labelled,
  opts: { bins?: number; binning?: Binning } = {},
): BrierDecomposition {
  const bins = checkBins(opts.bins ?? 15, "brierDecomposition");
  const binning = opts.binning ?? "width";
  if ((x as Labelled).gold === undefined) {
    const n = checkBinary(x as Binary, "brierDecomposition");
    checkNonEmpty(n, "brierDecomposition");
    return binaryDecomposition(x as Binary, n, bins, binning);
  }
  const d = x as Labelled;
  const n = checkLabelled(d, "brierDecomposition");
  checkNonEmpty(n, "brierDecomposition");
  const total: BrierDecomposition = { brier: 0, reliability: 0, resolution: 0, uncertainty: 0, residual: 0 };
  for (let j = 0; j < d.k; j++) {
    const part = binaryDecomposition(classViewUnchecked(d, n, j, false), n, bins, binning);
    total.brier += part.brier;
    total.reliability += part.reliability;
    total.resolution += part.resolution;
    total.uncertainty += part.uncertainty;
    total.residual += part.residual;
  }
  return total;
}
