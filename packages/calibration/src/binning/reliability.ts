import { checkBinary, checkBins, checkLevel, checkNonEmpty, isMultiLabel } from "../input.js";
import { jeffreysInterval } from "../intervals/jeffreys.js";
import { wilsonInterval } from "../intervals/wilson.js";
import type { Binary, Binning, Labelled, MultiLabel } from "../types.js";
import { classViews } from "../views.js";
import { type BinSums, binSums } from "./accumulate.js";

/** Options of a reliability diagram. */
export interface ReliabilityOptions {
  /** Bin count, 15 by default. */
  bins?: number;
  /** "width" (default) or "mass". */
  binning?: Binning;
  /** Per-bin interval on the accuracy: "wilson" (default) or "jeffreys". */
  interval?: "wilson" | "jeffreys";
  /** Interval level, 0.95 by default. */
  level?: number;
  /** Bins with fewer items are flagged `sparse` (shown greyed out); 10 by default. */
  minCount?: number;
}

/** One bin of a reliability diagram; confidence, accuracy and interval are null for an empty bin. */
export interface ReliabilityBin {
  lo: number;
  hi: number;
  count: number;
  confidence: number | null;
  accuracy: number | null;
  interval: [number, number] | null;
  sparse: boolean;
}

/** Reliability diagram bins with per-bin Wilson or Jeffreys intervals [Niculescu-Mizil & Caruana 2005; Guo et al. 2017]. */
export function reliabilityBins(b: Binary, opts: ReliabilityOptions = {}): ReliabilityBin[] {
  const n = checkBinary(b, "reliabilityBins");
  checkNonEmpty(n, "reliabilityBins");
  const bins = checkBins(opts.bins ?? 15, "reliabilityBins");
  const level = checkLevel(opts.level ?? 0.95, "reliabilityBins");
  const method = opts.interval ?? "wilson";
  if (method !== "wilson" && method !== "jeffreys") {
    throw new RangeError(
      `reliabilityBins: interval must be "wilson" or "jeffreys", got ${JSON.stringify(method)}`,
    );
  }
  return reliabilityFromSums(
    binSums(b, n, bins, opts.binning ?? "width"),
    method,
    level,
    opts.minCount ?? 10,
  );
}

/** Reliability bins from per-bin sums. Internal. */
export function reliabilityFromSums(
  s: BinSums,
  method: "wilson" | "jeffreys",
  level: number,
  minCount: number,
): ReliabilityBin[] {
  const bins = s.count.length;
  const out: ReliabilityBin[] = [];
  for (let i = 0; i < bins; i++) {
    const c = s.count[i];
    const hits = Math.round(s.sumY[i]);
    out.push({
      lo: s.edges[i],
      hi: s.edges[i + 1],
      count: c,
      confidence: c > 0 ? s.sumP[i] / c : null,
      accuracy: c > 0 ? s.sumY[i] / c : null,
      interval:
        c > 0
          ? method === "wilson"
            ? wilsonInterval(hits, c, level)
            : jeffreysInterval(hits, c, level)
          : null,
      sparse: c < minCount,
    });
  }
  return out;
}

/** Reliability bins of every option (one-vs-rest) or every label (multi-label) [Kull et al. 2019]. */
export function classwiseReliability(
  d: Labelled | MultiLabel,
  opts: ReliabilityOptions = {},
): ReliabilityBin[][] {
  if (!isMultiLabel(d) && (d as Labelled).gold === undefined) {
    throw new TypeError("classwiseReliability: expected { probs, k, gold } or { probs, k, labels }");
  }
  return classViews(d).map((v) => reliabilityBins(v, opts));
}

/**
 * scikit-learn's calibration_curve: fraction of positives and mean probability of every non-empty bin
 * (default 5 bins; "width" = strategy "uniform", "mass" = strategy "quantile") [Niculescu-Mizil & Caruana 2005].
 */
export function calibrationCurve(
  b: Binary,
  opts: { bins?: number; binning?: Binning } = {},
): { probTrue: number[]; probPred: number[] } {
  const n = checkBinary(b, "calibrationCurve");
  checkNonEmpty(n, "calibrationCurve");
  const bins = checkBins(opts.bins ?? 5, "calibrationCurve");
  const s = binSums(b, n, bins, opts.binning ?? "width");
  const probTrue: number[] = [];
  const probPred: number[] = [];
  for (let i = 0; i < bins; i++) {
    if (s.count[i] === 0) continue;
    probTrue.push(s.sumY[i] / s.count[i]);
    probPred.push(s.sumP[i] / s.count[i]);
  }
  return { probTrue, probPred };
}
