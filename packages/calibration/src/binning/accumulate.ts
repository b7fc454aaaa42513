import type { Binary, Binning } from "../types.js";
import { assignBins, binEdges } from "./edges.js";

/** Per-bin sums of a binary problem: counts, summed probabilities and summed outcomes. Internal. */
export interface BinSums {
  edges: Float64Array;
  count: Float64Array;
  sumP: Float64Array;
  sumY: Float64Array;
}

export function binSums(b: Binary, n: number, bins: number, binning: Binning): BinSums {
  const edges = binEdges(b.p, bins, binning);
  const ids = assignBins(b.p, edges);
  const count = new Float64Array(bins);
  const sumP = new Float64Array(bins);
  const sumY = new Float64Array(bins);
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    count[id]++;
    sumP[id] += b.p[i];
    sumY[id] += b.y[i];
  }
  return { edges, count, sumP, sumY };
}
