import { widthEdges } from "../binning/edges.js";

// Classwise ECE on the report's resamples. Classwise ECE with equal-width bins depends on a resample only through
// each (option, bin) pair's resampled residual sum, so every item's K one-vs-rest residuals are laid out once, in the
// engine's item order, with the index of their (option, bin) pair; each group of four resamples then costs one pass
// adding the item's four packed counts times its residuals to those pairs. Internal.

/** Per item (in the engine's order) and option: the (option, bin) pair's index and the residual y - p. */
export interface ClasswiseItems {
  k: number;
  bins: number;
  pair: Int32Array;
  res: Float64Array;
}

/** The width bin (e_b, e_b+1] holding p, as assignBins with widthEdges(bins). */
function widthBin(edges: Float64Array, bins: number, p: number): number {
  let b = Math.min(bins - 1, Math.max(0, Math.floor(p * bins)));
  while (b > 0 && !(edges[b] < p)) b--;
  while (b < bins - 1 && edges[b + 1] < p) b++;
  return b;
}

/** Each entry's (option, bin) pair and residual -p (the outcomes are added by addGold / addLabels). */
function layOut(
  order: Uint32Array,
  probs: Float64Array,
  k: number,
  edges: Float64Array,
  bins: number,
  pair: Int32Array,
  res: Float64Array,
): void {
  const n = order.length;
  for (let t = 0; t < n; t++) {
    const base = order[t] * k;
    for (let j = 0, at = t * k; j < k; j++, at++) {
      const p = probs[base + j];
      pair[at] = j * bins + widthBin(edges, bins, p);
      res[at] = -p;
    }
  }
}

/** One-vs-rest outcomes: 1 for the gold option. */
function addGold(order: Uint32Array, gold: ArrayLike<number>, k: number, res: Float64Array): void {
  for (let t = 0; t < order.length; t++) res[t * k + gold[order[t]]] += 1;
}

/** Per-label outcomes. */
function addLabels(order: Uint32Array, labels: ArrayLike<number>, k: number, res: Float64Array): void {
  for (let t = 0; t < order.length; t++) {
    const base = order[t] * k;
    for (let j = 0; j < k; j++) res[t * k + j] += labels[base + j];
  }
}

/** The one-vs-rest (gold) or per-label (labels) residuals of validated data, items in the given order. */
export function classwiseItems(
  probs: Float64Array,
  k: number,
  gold: ArrayLike<number> | null,
  labels: ArrayLike<number> | null,
  order: Uint32Array,
  bins: number,
): ClasswiseItems {
  const m = order.length * k;
  const pair = new Int32Array(m);
  const res = new Float64Array(m);
  layOut(order, probs, k, widthEdges(bins), bins, pair, res);
  if (labels !== null) addLabels(order, labels, k, res);
  else if (gold !== null) addGold(order, gold, k, res);
  return { k, bins, pair, res };
}

/**
 * Adds four packed resamples' counts times residuals to their (option, bin) pairs: sums[lane * kb + pair], even items
 * into the first half of sums and odd items into the second (consecutive items mostly share a pair, and two
 * accumulators halve the chain of dependent additions).
 */
function classwisePass(
  counts: Uint32Array,
  pair: Int32Array,
  res: Float64Array,
  k: number,
  kb: number,
  sums: Float64Array,
): void {
  const n = counts.length;
  const odd = 4 * kb;
  for (let t = 0; t < n; t++) {
    const w = counts[t];
    const a = w & 255;
    const b = (w >>> 8) & 255;
    const c = (w >>> 16) & 255;
    const d = w >>> 24;
    const half = (t & 1) * odd;
    for (let j = 0, at = t * k; j < k; j++, at++) {
      const q = pair[at] + half;
      const r = res[at];
      sums[q] += a * r;
      sums[kb + q] += b * r;
      sums[2 * kb + q] += c * r;
      sums[3 * kb + q] += d * r;
    }
  }
}

/** Mean over options of sum_b |sums| / n, for lane `lane` (its even and odd halves added). */
function laneEce(sums: Float64Array, from: number, kb: number, n: number, k: number): number {
  let total = 0;
  const odd = 4 * kb;
  for (let q = from; q < from + kb; q++) total += Math.abs(sums[q] + sums[odd + q]);
  return total / n / k;
}

/**
 * Classwise ECE of each group of four resamples (packed counts from the engine's onCounts), written to
 * out[first + lane] for the lanes below out.length; sums is scratch of 8 * k * bins.
 */
export function classwiseReplicates(
  items: ClasswiseItems,
  counts: Uint32Array,
  first: number,
  out: Float64Array,
  sums: Float64Array,
): void {
  const kb = items.k * items.bins;
  if (first >= out.length) return;
  sums.fill(0);
  classwisePass(counts, items.pair, items.res, items.k, kb, sums);
  for (let lane = 0; lane < 4 && first + lane < out.length; lane++) {
    out[first + lane] = laneEce(sums, lane * kb, kb, counts.length, items.k);
  }
}
