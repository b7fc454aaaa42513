import { binSums } from "../binning/accumulate.js";
import { checkBinary, checkBins, checkLabelled, checkNonEmpty } from "../input.js";
import type { Binary, Binning, Labelled } from "../types.js";
import { classViewUnchecked } from "../views.js";

/** Multiclass Brier score: mean over items of sum_j (p_ij - [gold_i = j])^2 [Brier 1950]. */
export function brier(d: Labelled): number {
  const n = checkLabelled(d, "brier");
  checkNonEmpty(n, "brier");
  const { probs, k, gold } = d;
  let total = 0;
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let s = 0;
    for (let j = 0; j < k; j++) {
      const e = probs[base + j] - (gold[i] === j ? 1 : 0);
      s += e * e;
    }
    total += s;
  }
  return total / n;
}

/** Binary Brier score: mean of (p - y)^2, scikit-learn's brier_score_loss [Brier 1950]. */
export function binaryBrier(b: Binary): number {
  const n = checkBinary(b, "binaryBrier");
  checkNonEmpty(n, "binaryBrier");
  let total = 0;
  for (let i = 0; i < n; i++) total += (b.y[i] - b.p[i]) ** 2;
  return total / n;
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
  let base = 0;
  let score = 0;
  for (let i = 0; i < n; i++) {
    base += b.y[i];
    score += (b.y[i] - b.p[i]) ** 2;
  }
  base /= n;
  score /= n;
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
