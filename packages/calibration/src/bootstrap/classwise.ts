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
 * Adds two groups of four packed resamples' counts (first, then second) times residuals to their (option, bin) pairs:
 * sums[8 * pair + lane]. Reading each entry once for eight resamples takes about a third less time than twice for four.
 */
function pass8(
  first: Uint32Array,
  second: Uint32Array,
  bin: Uint16Array,
  res: Float32Array,
  k: number,
  bins: number,
  sums: Float64Array,
): void {
  const n = first.length;
  for (let t = 0; t < n; t++) {
    const w = first[t];
    const a = w & 255;
    const b = (w >>> 8) & 255;
    const c = (w >>> 16) & 255;
    const d = w >>> 24;
    const v = second[t];
    const e = v & 255;
    const f = (v >>> 8) & 255;
    const g = (v >>> 16) & 255;
    const h = v >>> 24;
    for (let j = 0, at = t * k, jb = 0; j < k; j++, at++, jb += bins) {
      const q = (jb + bin[at]) << 3;
      const r = res[at];
      sums[q] += a * r;
      sums[q + 1] += b * r;
      sums[q + 2] += c * r;
      sums[q + 3] += d * r;
      sums[q + 4] += e * r;
      sums[q + 5] += f * r;
      sums[q + 6] += g * r;
      sums[q + 7] += h * r;
    }
  }
}

/** Mean over options of sum over bins of |sums[8 * pair + lane]| / n. */
function laneEce(sums: Float64Array, lane: number, kb: number, n: number, k: number): number {
  let total = 0;
  for (let q = 0; q < kb; q++) total += Math.abs(sums[8 * q + lane]);
  return total / n / k;
}

/** Scratch of one report's classwise resampling: pair sums for eight resamples, and one group of held counts. */
export interface ClasswiseScratch {
  sums: Float64Array;
  held: Uint32Array;
}

export function classwiseScratch(items: ClasswiseItems, n: number): ClasswiseScratch {
  return { sums: new Float64Array(8 * items.k * items.bins), held: new Uint32Array(n) };
}

/**
 * Classwise ECE of each group of four resamples (packed counts from the engine's onCounts, groups in order, `first`
 * their first resample), written to out[first + lane] for the resamples below out.length. Groups are taken in pairs:
 * an even group's counts are held until the next one, unless no further group is needed.
 */
export function classwiseReplicates(
  items: ClasswiseItems,
  counts: Uint32Array,
  first: number,
  out: Float64Array,
  scratch: ClasswiseScratch,
): void {
  if (first >= out.length) return;
  const { k, bins, bin, res } = items;
  const kb = k * bins;
  const n = counts.length;
  const { sums, held } = scratch;
  const even = (first & 4) === 0;
  if (even && first + 4 < out.length) {
    held.set(counts);
    return;
  }
  sums.fill(0);
  let start = first - 4;
  if (even) {
    // The last group, with none to pair it with: passed with a group of zero counts.
    held.fill(0);
    pass8(counts, held, bin, res, k, bins, sums);
    start = first;
  } else pass8(held, counts, bin, res, k, bins, sums);
  for (let lane = 0; lane < 8 && start + lane < out.length; lane++) {
    out[start + lane] = laneEce(sums, lane, kb, n, k);
  }
}
