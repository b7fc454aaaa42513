import { accumulate, type BinSums, binSums } from "../binning/accumulate.js";
import { assignBins, widthEdges } from "../binning/edges.js";
import {
  checkBinary,
  checkBins,
  checkLabelled,
  checkMultiLabel,
  checkNonEmpty,
  isMultiLabel,
} from "../input.js";
import type { Binary, Binning, Labelled, MultiLabel } from "../types.js";
import { classViewUnchecked } from "../views.js";

/** Options of the binned calibration errors: bin count (15) and binning ("width"). */
export interface EceOptions {
  bins?: number;
  binning?: Binning;
}

function sums(b: Binary, opts: EceOptions, fn: string) {
  const n = checkBinary(b, fn);
  checkNonEmpty(n, fn);
  const bins = checkBins(opts.bins ?? 15, fn);
  return { n, s: binSums(b, n, bins, opts.binning ?? "width") };
}

/** ECE from per-bin sums. Internal. */
export function eceFromSums(s: BinSums, n: number): number {
  let total = 0;
  for (let i = 0; i < s.count.length; i++) total += Math.abs(s.sumY[i] - s.sumP[i]);
  return total / n;
}

/** MCE from per-bin sums. Internal. */
export function mceFromSums(s: BinSums): number {
  let worst = 0;
  for (let i = 0; i < s.count.length; i++) {
    if (s.count[i] > 0) worst = Math.max(worst, Math.abs(s.sumY[i] - s.sumP[i]) / s.count[i]);
  }
  return worst;
}

/**
 * Expected calibration error: sum over bins of (n_b / N) * |acc_b - conf_b| [Guo et al. 2017]; with
 * binning "mass" the bins hold equal counts [Nixon et al. 2019, "adaptive calibration error"].
 */
export function ece(b: Binary, opts: EceOptions = {}): number {
  const { n, s } = sums(b, opts, "ece");
  return eceFromSums(s, n);
}

/**
 * The equal-width ECE of rows given part by part, in O(bins) memory whatever their count: `add` each part's
 * { p, y } (or `merge` another's parts); `value()` is `ece` of all the rows joined, up to the order in which each
 * bin's sums were added (a difference in the last bits). For a headline over more rows than one would hold at once.
 */
export class EceSums {
  private readonly edges: Float64Array;
  private readonly count: Float64Array;
  private readonly sumP: Float64Array;
  private readonly sumY: Float64Array;
  private rows = 0;

  constructor(readonly bins = 15) {
    this.edges = widthEdges(checkBins(bins, "EceSums"));
    this.count = new Float64Array(bins);
    this.sumP = new Float64Array(bins);
    this.sumY = new Float64Array(bins);
  }

  /** Rows added so far. */
  get n(): number {
    return this.rows;
  }

  /** Adds the rows of one part. */
  add(b: Binary): void {
    const n = checkBinary(b, "EceSums.add");
    accumulate(assignBins(b.p, this.edges), b.p, b.y, n, this.count, this.sumP, this.sumY);
    this.rows += n;
  }

  /** Adds the rows another accumulator (with as many bins) holds. */
  merge(other: EceSums): void {
    if (other.bins !== this.bins) {
      throw new RangeError(`EceSums.merge: ${other.bins} bins into ${this.bins}; both must have as many`);
    }
    for (let i = 0; i < this.bins; i++) {
      this.count[i] += other.count[i];
      this.sumP[i] += other.sumP[i];
      this.sumY[i] += other.sumY[i];
    }
    this.rows += other.rows;
  }

  /** The ECE of every row added; a RangeError when there is none. */
  value(): number {
    checkNonEmpty(this.rows, "EceSums.value");
    return eceFromSums({ edges: this.edges, count: this.count, sumP: this.sumP, sumY: this.sumY }, this.rows);
  }
}

/** Maximum calibration error: the largest |acc_b - conf_b| over non-empty bins [Naeini et al. 2015]. */
export function mce(b: Binary, opts: EceOptions = {}): number {
  const { s } = sums(b, opts, "mce");
  return mceFromSums(s);
}

/** Classwise ECE: the mean over options (or labels) of the one-vs-rest ECE [Kull et al. 2019]. */
export function classwiseEce(d: Labelled | MultiLabel, opts: EceOptions = {}): number {
  if (!isMultiLabel(d) && (d as Labelled).gold === undefined) {
    throw new TypeError("classwiseEce: expected { probs, k, gold } or { probs, k, labels }");
  }
  const multi = isMultiLabel(d);
  const n = multi ? checkMultiLabel(d, "classwiseEce") : checkLabelled(d as Labelled, "classwiseEce");
  checkNonEmpty(n, "classwiseEce");
  return classwiseUnchecked(d, n, multi, checkBins(opts.bins ?? 15, "classwiseEce"), opts.binning ?? "width");
}

/** Classwise ECE of validated data, one view at a time. Internal. */
export function classwiseUnchecked(
  d: Labelled | MultiLabel,
  n: number,
  multi: boolean,
  bins: number,
  binning: Binning,
): number {
  let total = 0;
  for (let j = 0; j < d.k; j++)
    total += eceFromSums(binSums(classViewUnchecked(d, n, j, multi), n, bins, binning), n);
  return total / d.k;
}
