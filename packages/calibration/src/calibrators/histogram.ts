import { assignBins, massEdges } from "../binning/edges.js";
import { NothingLearnedError } from "../errors.js";
import { checkBinary, checkBins } from "../input.js";
import { countPositives, degenerateWarnings, targetRange } from "./targets.js";
import type { BinaryCalibrator, FitWarnings } from "./types.js";

/** Histogram-binning params: equal-mass bin edges and the outcome rate of each bin. */
export interface HistogramParams extends FitWarnings {
  edges: number[];
  values: number[];
}

/**
 * Histogram binning: equal-mass bins of p (10 by default), each mapped to its observed outcome rate, kept inside
 * Platt's smoothed targets [1 / (N- + 2), (N+ + 1) / (N+ + 2)] so that no bin maps to exactly 0 or 1
 * [Zadrozny & Elkan 2001; Platt 1999].
 */
export function histogramBinning(opts: { bins?: number } = {}): BinaryCalibrator<HistogramParams> {
  const bins = checkBins(opts.bins ?? 10, "histogramBinning");
  return {
    name: "histogram",
    fit(data) {
      const n = checkBinary(data, "histogram.fit");
      if (n === 0) throw new NothingLearnedError();
      const edges = massEdges(data.p, bins);
      const ids = assignBins(data.p, edges);
      const count = new Float64Array(bins);
      const hits = new Float64Array(bins);
      for (let i = 0; i < n; i++) {
        count[ids[i]]++;
        hits[ids[i]] += data.y[i];
      }
      const pos = countPositives(data.y, n);
      const [lo, hi] = targetRange(pos, n);
      const values: number[] = [];
      for (let b = 0; b < bins; b++) {
        const v = count[b] > 0 ? hits[b] / count[b] : (edges[b] + edges[b + 1]) / 2;
        values.push(Math.min(hi, Math.max(lo, v)));
      }
      const params: HistogramParams = { edges: Array.from(edges), values };
      const warnings = degenerateWarnings(data.p, data.y, n, pos);
      if (n < 10 * bins)
        warnings.push(`${n} items for ${bins} bins: fewer than 10 per bin, the rates are noisy`);
      if (warnings.length > 0) params.warnings = warnings;
      return params;
    },
    apply(params, p) {
      const { edges, values } = params;
      if (
        !Array.isArray(edges) ||
        !Array.isArray(values) ||
        edges.length !== values.length + 1 ||
        values.length < 1
      ) {
        throw new TypeError("histogram.apply: params.edges must hold one more number than params.values");
      }
      const ids = assignBins(p, Float64Array.from(edges));
      const out = new Float64Array(p.length);
      for (let i = 0; i < p.length; i++) out[i] = values[ids[i]];
      return out;
    },
  };
}
