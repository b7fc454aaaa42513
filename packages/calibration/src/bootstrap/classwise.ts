import { widthEdges } from "../binning/edges.js";

// Classwise ECE on the report's resamples. Classwise ECE with equal-width bins depends on a resample only through
// each (option, bin) pair's resampled residual sum, so every item's K one-vs-rest residuals are laid out once, in the
// engine's item order, with the index of their (option, bin) pair; each group of four resamples then costs one pass
// adding the item's four packed counts times its residuals to those pairs. Internal.

/**
 * Per item (in the engine's order) and option: the option's width bin (16 bits; at most MAX_BINS bins) and the
 * residual y - p in single precision: 6 bytes per entry, half of an Int32 pair index and a Float64 residual, as the
 * layout is N x K entries (60 MB at 10^6 x 10). A resample's sums of single-precision residuals are within about 1e-7
 * (relative) of the exact ones, far inside the resampling spread the interval reads.
 */
export interface ClasswiseItems {
  k: number;
  bins: number;
  bin: Uint16Array;
  res: Float32Array;
}

/** The largest bin count the classwise layout holds. */
export const MAX_BINS = 65536;

/** The width bin (e_b, e_b+1] holding p, as assignBins with widthEdges(bins). */
function widthBin(edges: Float64Array, bins: number, p: number): number {
  let b = Math.min(bins - 1, Math.max(0, Math.floor(p * bins)));
  while (b > 0 && !(edges[b] < p)) b--;
  while (b < bins - 1 && edges[b + 1] < p) b++;
  return b;
}

/** Each entry's bin and residual -p (the outcomes are added by addGold / addLabels). */
function layOut(
  order: Uint32Array,
  probs: Float64Array,
  k: number,
  edges: Float64Array,
  bins: number,
  bin: Uint16Array,
  res: Float32Array,
): void {
  const n = order.length;
  for (let t = 0; t < n; t++) {
    const base = order[t] * k;
    for (let j = 0, at = t * k; j < k; j++, at++) {
      const p = probs[base + j];
      bin[at] = widthBin(edges, bins, p);
      res[at] = -p;
    }
  }
}

/** One-vs-rest outcomes: 1 for the gold option. */
function addGold(order: Uint32Array, gold: ArrayLike<number>, k: number, res: Float32Array): void {
  for (let t = 0; t < order.length; t++) res[t * k + gold[order[t]]] += 1;
}

/** Per-label outcomes. */
function addLabels(order: Uint32Array, labels: ArrayLike<number>, k: number, res: Float32Array): void {
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
  const bin = new Uint16Array(m);
  const res = new Float32Array(m);
  layOut(order, probs, k, widthEdges(bins), bins, bin, res);
  if (labels !== null) addLabels(order, labels, k, res);
  else if (gold !== null) addGold(order, gold, k, res);
  return { k, bins, bin, res };
}

/**
 * Adds four packed resamples' counts times residuals to their (option, bin) pairs: sums[lane * kb + pair], even items
 * into the first half of sums and odd items into the second (consecutive items mostly share a pair, and two
 * accumulators halve the chain of dependent additions).
 */
function classwisePass(
  counts: Uint32Array,
  bin: Uint16Array,
  res: Float32Array,
  k: number,
  bins: number,
  sums: Float64Array,
): void {
  const kb = k * bins;
  const n = counts.length;
  const odd = 4 * kb;
  for (let t = 0; t < n; t++) {
    const w = counts[t];
    const a = w & 255;
    const b = (w >>> 8) & 255;
    const c = (w >>> 16) & 255;
    const d = w >>> 24;
    const half = (t & 1) * odd;
    for (let j = 0, at = t * k, jb = half; j < k; j++, at++, jb += bins) {
      const q = jb + bin[at];
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
  classwisePass(counts, items.bin, items.res, items.k, items.bins, sums);
  for (let lane = 0; lane < 4 && first + lane < out.length; lane++) {
    out[first + lane] = laneEce(sums, lane * kb, kb, counts.length, items.k);
  }
}
