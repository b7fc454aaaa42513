import { assignBins, widthEdges } from "../binning/edges.js";
import { checkBinary, checkBins, checkNonEmpty } from "../input.js";
import type { Binary } from "../types.js";
import { eceFromSums } from "./ece.js";

/** A probability's units: p is counted as round(p * 2^53), split in two parts below 2^27 so that sums stay exact. */
const UNIT = 2 ** 53;
const HALF = 2 ** 26;

/**
 * The equal-width ECE of rows given part by part, in O(bins) memory whatever their count: `add` each part's
 * { p, y } (or `merge` another's parts); `value()` is `ece` of all the rows joined. Each bin's probabilities are
 * summed as integers of 2^-53 (exact up to 2^26 rows a bin), so the value is the same whatever the order of the
 * parts and of the rows in them, and within about 1e-16 of `ece` (which sums the doubles in row order).
 */
export class EceSums {
  private readonly edges: Float64Array;
  private readonly count: Float64Array;
  /** Per bin: the sum of each p's high and low units (p * 2^53 = high * 2^26 + low), and of the outcomes. */
  private readonly high: Float64Array;
  private readonly low: Float64Array;
  private readonly sumY: Float64Array;
  private rows = 0;

  constructor(readonly bins = 15) {
    this.edges = widthEdges(checkBins(bins, "EceSums"));
    this.count = new Float64Array(bins);
    this.high = new Float64Array(bins);
    this.low = new Float64Array(bins);
    this.sumY = new Float64Array(bins);
  }

  /** Rows added so far. */
  get n(): number {
    return this.rows;
  }

  /** Adds the rows of one part. */
  add(b: Binary): void {
    const n = checkBinary(b, "EceSums.add");
    const ids = assignBins(b.p, this.edges);
    for (let i = 0; i < n; i++) {
      const id = ids[i];
      const units = Math.round(b.p[i] * UNIT);
      const high = Math.floor(units / HALF);
      this.count[id]++;
      this.high[id] += high;
      this.low[id] += units - high * HALF;
      this.sumY[id] += b.y[i];
    }
    this.rows += n;
  }

  /** Adds the rows another accumulator (with as many bins) holds. */
  merge(other: EceSums): void {
    if (other.bins !== this.bins) {
      throw new RangeError(`EceSums.merge: ${other.bins} bins into ${this.bins}; both must have as many`);
    }
    for (let i = 0; i < this.bins; i++) {
      this.count[i] += other.count[i];
      this.high[i] += other.high[i];
      this.low[i] += other.low[i];
      this.sumY[i] += other.sumY[i];
    }
    this.rows += other.rows;
  }

  /** The ECE of every row added; a RangeError when there is none. */
  value(): number {
    checkNonEmpty(this.rows, "EceSums.value");
    const sumP = this.high.map((h, i) => (h * HALF + this.low[i]) / UNIT);
    return eceFromSums({ edges: this.edges, count: this.count, sumP, sumY: this.sumY }, this.rows);
  }
}
