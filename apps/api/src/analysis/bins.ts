import {
  assignBins,
  type Binary,
  type Binning,
  type ReliabilityBin,
  reliabilityBins,
  widthEdges,
} from "@decision-workbench/calibration";
import type { Bin, HistogramBar } from "../shapes/reports.js";

/** Options of the reliability bins. */
export interface BinOptions {
  bins: number;
  binning: Binning;
  interval: "wilson" | "jeffreys";
}

/** The calibration library's reliability bin in the API's shape. */
export function toBin(b: ReliabilityBin): Bin {
  return {
    lo: b.lo,
    hi: b.hi,
    count: b.count,
    confidence: b.confidence,
    accuracy: b.accuracy,
    low: b.interval ? b.interval[0] : null,
    high: b.interval ? b.interval[1] : null,
    sparse: b.sparse,
  };
}

/** Reliability bins of a binary problem (empty list when there is nothing to bin). */
export function binsOf(b: Binary, opts: BinOptions): Bin[] {
  if (b.p.length === 0) return [];
  return reliabilityBins(b, { bins: opts.bins, binning: opts.binning, interval: opts.interval }).map(toBin);
}

/** Confidence histogram: `bars` equal-width bars on [0, 1], right and wrong answers counted apart. */
export function confidenceHistogram(b: Binary, bars = 20): HistogramBar[] {
  const edges = widthEdges(bars);
  const ids = assignBins(b.p, edges);
  const out: HistogramBar[] = [];
  for (let i = 0; i < bars; i++) out.push({ lo: edges[i], hi: edges[i + 1], right: 0, wrong: 0 });
  for (let i = 0; i < ids.length; i++) {
    if (b.y[i] === 1) out[ids[i]].right++;
    else out[ids[i]].wrong++;
  }
  return out;
}
