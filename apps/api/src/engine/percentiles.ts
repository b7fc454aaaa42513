/** Latency percentiles over request times (nearest rank). */

/** Request-time percentiles, ms to one decimal. */
export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
}

/** p50, p90, p99 of ascending values (0 when there are none), rounded to 0.1 ms. */
export function percentiles(sorted: ArrayLike<number>): Percentiles {
  const at = (q: number) => {
    if (sorted.length === 0) return 0;
    const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
    return Math.round(sorted[i] * 10) / 10;
  };
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

/**
 * Request times of a live run: appended as they arrive; the ones new since the last percentiles are sorted on
 * their own and merged into the sorted rest (a live run asks for percentiles a few times a second).
 */
export class LatencyLog {
  private sorted: Float64Array;
  private fresh: number[] = [];

  constructor(initial: number[] = []) {
    this.sorted = Float64Array.from(initial).sort();
  }

  add(ms: number): void {
    this.fresh.push(ms);
  }

  percentiles(): { p50: number; p90: number; p99: number } {
    if (this.fresh.length) {
      this.sorted = mergeSorted(this.sorted, Float64Array.from(this.fresh).sort());
      this.fresh = [];
    }
    return percentiles(this.sorted);
  }
}

/** The ascending union of two ascending arrays. */
function mergeSorted(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}
