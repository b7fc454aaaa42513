/** Latency percentiles over request times (nearest rank). */

/** p50, p90, p99 of ascending values (0 when there are none), rounded to 0.1 ms. */
export function percentiles(sorted: ArrayLike<number>): { p50: number; p90: number; p99: number } {
  const at = (q: number) => {
    if (sorted.length === 0) return 0;
    const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
    return Math.round(sorted[i] * 10) / 10;
  };
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

/** Request times of a live run: appended as they arrive, sorted lazily. */
export class LatencyLog {
  private values: number[];
  private sorted: Float64Array | null = null;

  constructor(initial: number[] = []) {
    this.values = initial.slice();
  }

  add(ms: number): void {
    this.values.push(ms);
    this.sorted = null;
  }

  get count(): number {
    return this.values.length;
  }

  percentiles(): { p50: number; p90: number; p99: number } {
    if (!this.sorted) this.sorted = Float64Array.from(this.values).sort();
    return percentiles(this.sorted);
  }
}
