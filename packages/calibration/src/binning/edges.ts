import { checkBins } from "../input.js";
import { orderStatistics } from "../sort.js";
import type { Binning } from "../types.js";

/** Equal-width bin edges on [0, 1], bit-identical to numpy.linspace(0, 1, bins + 1) [Guo et al. 2017]. */
export function widthEdges(bins: number): Float64Array {
  checkBins(bins, "widthEdges");
  const edges = new Float64Array(bins + 1);
  const step = 1 / bins;
  for (let i = 0; i < bins; i++) edges[i] = i * step;
  edges[bins] = 1;
  return edges;
}

/** numpy's "linear" percentile interpolation between two neighbouring order statistics. */
function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/**
 * Equal-mass bin edges: the sample quantiles at i / bins, bit-identical to
 * numpy.percentile(values, linspace(0, 1, bins + 1) * 100) as scikit-learn's calibration_curve uses it
 * [Nixon et al. 2019; Hyndman & Fan 1996, definition 7].
 */
export function massEdges(values: ArrayLike<number>, bins: number): Float64Array {
  checkBins(bins, "massEdges");
  const n = values.length;
  if (n === 0) throw new RangeError("massEdges: no values to take quantiles of");
  const step = 1 / bins;
  const vIndex: number[] = [];
  const ranks = new Set<number>();
  for (let i = 0; i <= bins; i++) {
    const q = ((i < bins ? i * step : 1) * 100) / 100;
    const vi = (n - 1) * q;
    vIndex.push(vi);
    if (vi >= n - 1) ranks.add(n - 1);
    else {
      const lo = Math.floor(vi);
      ranks.add(lo);
      ranks.add(lo + 1);
    }
  }
  const sortedRanks = [...ranks].sort((a, b) => a - b);
  const stats = orderStatistics(values, sortedRanks);
  const at = new Map<number, number>();
  for (let i = 0; i < sortedRanks.length; i++) at.set(sortedRanks[i], stats[i]);
  const edges = new Float64Array(bins + 1);
  for (let i = 0; i <= bins; i++) {
    const vi = vIndex[i];
    if (vi >= n - 1) edges[i] = at.get(n - 1)!;
    else {
      const lo = Math.floor(vi);
      edges[i] = lerp(at.get(lo)!, at.get(lo + 1)!, vi - lo);
    }
  }
  return edges;
}

/** Bin edges for either binning. */
export function binEdges(values: ArrayLike<number>, bins: number, binning: Binning): Float64Array {
  if (binning === "width") return widthEdges(bins);
  if (binning === "mass") return massEdges(values, bins);
  throw new RangeError(`binning must be "width" or "mass", got ${JSON.stringify(binning)}`);
}

/**
 * Bin index of every value: the number of interior edges strictly below it, like
 * numpy.searchsorted(edges[1:-1], v) (so bins are (e_b, e_b+1], the first one closed at its left end)
 * [Niculescu-Mizil & Caruana 2005, as in scikit-learn].
 */
export function assignBins(values: ArrayLike<number>, edges: Float64Array): Int32Array {
  const n = values.length;
  const bins = edges.length - 1;
  const out = new Int32Array(n);
  if (bins <= 1) return out;
  let uniform = edges[0] === 0 && edges[bins] === 1;
  for (let b = 1; uniform && b < bins; b++) if (edges[b] !== b * (1 / bins)) uniform = false;
  if (uniform) {
    assignUniform(values, edges, out);
    return out;
  }
  // Other edges: a 4096-cell grid over the interior edges narrows each value to one or two candidate bins, decided
  // exactly against the edges (the cell of a value may be off by one through rounding, so neighbours are included).
  const first = edges[1];
  const last = edges[bins - 1];
  const cells = 4096;
  const width = (last - first) / cells;
  if (!(width > 0)) {
    assignExact(values, edges, out);
    return out;
  }
  const lowBin = new Int32Array(cells + 2);
  const highBin = new Int32Array(cells + 2);
  cellBins(edges, width, lowBin, highBin);
  assignByGrid(values, edges, width, lowBin, highBin, out);
  return out;
}

// The loops over all values below are functions of their own, of typed arrays and numbers, with nothing after the
// loop: V8 compiles a long loop while it runs, on the first call, and code after it that needs type feedback (never
// run then) made every later call bail out of the compiled loop; closures made per call (as these were), once
// inlined, are thrown away with the compiled code when a garbage collection frees them.

/** The bin of v among bins from..to: the first b whose upper edge is not below v. */
function exactBin(edges: Float64Array, v: number, from: number, to: number): number {
  let b = from;
  while (b < to && edges[b + 1] < v) b++;
  return b;
}

/** Equal-width edges (numpy.linspace): the bin from v * bins, corrected against the edges. */
function assignUniform(values: ArrayLike<number>, edges: Float64Array, out: Int32Array): void {
  const bins = edges.length - 1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    let b = Math.floor(v * bins);
    if (b > bins - 1) b = bins - 1;
    if (b < 0) b = 0;
    while (b > 0 && v <= edges[b]) b--;
    while (b < bins - 1 && v > edges[b + 1]) b++;
    out[i] = b;
  }
}

/** Interior edges all equal: each value against the edges. */
function assignExact(values: ArrayLike<number>, edges: Float64Array, out: Int32Array): void {
  const bins = edges.length - 1;
  for (let i = 0; i < values.length; i++) out[i] = exactBin(edges, values[i], 0, bins - 1);
}

/** The lowest and highest bin a value in each grid cell can fall in (a cell either side included). */
function cellBins(edges: Float64Array, width: number, lowBin: Int32Array, highBin: Int32Array): void {
  const bins = edges.length - 1;
  const first = edges[1];
  for (let c = 0; c < lowBin.length; c++) {
    lowBin[c] = exactBin(edges, first + (c - 2) * width, 0, bins - 1);
    highBin[c] = exactBin(edges, first + (c + 1) * width, 0, bins - 1);
  }
}

/** Through the grid of `width` cells from the first interior edge (lowBin / highBin: each cell's candidate bins). */
function assignByGrid(
  values: ArrayLike<number>,
  edges: Float64Array,
  width: number,
  lowBin: Int32Array,
  highBin: Int32Array,
  out: Int32Array,
): void {
  const bins = edges.length - 1;
  const first = edges[1];
  const last = edges[bins - 1];
  const cells = lowBin.length - 2;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v <= first) out[i] = 0;
    else if (v > last) out[i] = bins - 1;
    else {
      const c = Math.min(cells + 1, Math.max(0, Math.floor((v - first) / width)));
      out[i] = exactBin(edges, v, lowBin[c], highBin[c]);
    }
  }
}
