import type { Binary, Binning } from "../types.js";
import { assignBins, binEdges } from "./edges.js";

/** Per-bin sums of a binary problem: counts, summed probabilities and summed outcomes. Internal. */
export interface BinSums {
  edges: Float64Array;
  count: Float64Array;
  sumP: Float64Array;
  sumY: Float64Array;
}

/**
 * Adds each item to its bin. A loop of its own with nothing after it: V8 compiles a long loop while it runs, on the
 * first call, and the result's object literal after it (never run then) made every later call bail out of the
 * compiled loop. It takes the arrays themselves, not the caller's { p, y } object, whose hidden class differs from
 * caller to caller.
 */
function accumulate(
  ids: Int32Array,
  p: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  count: Float64Array,
  sumP: Float64Array,
  sumY: Float64Array,
): void {
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    count[id]++;
    sumP[id] += p[i];
    sumY[id] += y[i];
  }
}

export function binSums(b: Binary, n: number, bins: number, binning: Binning): BinSums {
  const edges = binEdges(b.p, bins, binning);
  const ids = assignBins(b.p, edges);
  const count = new Float64Array(bins);
  const sumP = new Float64Array(bins);
  const sumY = new Float64Array(bins);
  accumulate(ids, b.p, b.y, n, count, sumP, sumY);
  return { edges, count, sumP, sumY };
}
