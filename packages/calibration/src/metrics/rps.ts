import { checkLabelled, checkNonEmpty } from "../input.js";
import type { Labelled } from "../types.js";
import { argmaxUnchecked } from "../views.js";

/**
 * Ranked probability score for ordered options (score items): mean over items of
 * sum_{k < K} (CDF_p(k) - CDF_gold(k))^2 / (K - 1), 0 = perfect [Epstein 1969; Murphy 1971].
 */
export function rps(d: Labelled): number {
  const n = checkLabelled(d, "rps");
  checkNonEmpty(n, "rps");
  const { probs, k, gold } = d;
  if (k < 2) throw new RangeError("rps: needs at least 2 ordered options");
  let total = 0;
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let cdf = 0;
    let s = 0;
    for (let j = 0; j < k - 1; j++) {
      cdf += probs[base + j];
      const obs = j >= gold[i] ? 1 : 0;
      s += (cdf - obs) ** 2;
    }
    total += s / (k - 1);
  }
  return total / n;
}

/** Share of items whose predicted level is at most one step from the gold level [Gaudette & Japkowicz 2009]. */
export function offByOneAccuracy(d: Labelled): number {
  const n = checkLabelled(d, "offByOneAccuracy");
  checkNonEmpty(n, "offByOneAccuracy");
  const pred = argmaxUnchecked(d.probs, n, d.k);
  let hits = 0;
  for (let i = 0; i < n; i++) if (Math.abs(pred[i] - d.gold[i]) <= 1) hits++;
  return hits / n;
}
