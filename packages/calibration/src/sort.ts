// Sorting helpers for large typed arrays. Internal: not part of the public surface.

/**
 * The values at the given ascending ranks (0-based order statistics) without sorting everything: a histogram over
 * [min, max] locates the cell holding each rank, and only those cells' values are sorted.
 */
export function orderStatistics(values: ArrayLike<number>, ranks: readonly number[]): Float64Array {
  const n = values.length;
  const out = new Float64Array(ranks.length);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (!(max > min)) return out.fill(min);
  const cells = Math.min(65536, Math.max(64, n >> 2));
  const scale = cells / (max - min);
  const cellOf = (v: number) => Math.min(cells - 1, Math.floor((v - min) * scale));
  const count = new Uint32Array(cells + 1);
  for (let i = 0; i < n; i++) count[cellOf(values[i]) + 1]++;
  for (let c = 0; c < cells; c++) count[c + 1] += count[c]; // count[c]: values in cells before c
  const cellOfRank = ranks.map((r) => {
    let lo = 0;
    let hi = cells - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (count[mid] <= r) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  });
  const wanted = new Int32Array(cells).fill(-1);
  let total = 0;
  for (const c of cellOfRank) {
    if (wanted[c] < 0) {
      wanted[c] = total;
      total += count[c + 1] - count[c];
    }
  }
  const picked = new Float64Array(total);
  const fill = Int32Array.from(wanted);
  for (let i = 0; i < n; i++) {
    const c = cellOf(values[i]);
    if (wanted[c] >= 0) picked[fill[c]++] = values[i];
  }
  const sortedCells = new Set<number>();
  for (let j = 0; j < ranks.length; j++) {
    const c = cellOfRank[j];
    const part = picked.subarray(wanted[c], wanted[c] + count[c + 1] - count[c]);
    if (!sortedCells.has(c)) {
      part.sort();
      sortedCells.add(c);
    }
    out[j] = part[ranks[j] - count[c]];
  }
  return out;
}

/**
 * Stable ascending argsort of values in [0, 1] (probabilities): bucket sort on the value with about one bucket per
 * item, insertion sort inside buckets on a contiguous copy of the values (linear for spread-out data and for runs
 * of ties), comparison sort for the rare crowded bucket. `sorted` receives the values in order when given.
 */
export function argsortUnit(values: ArrayLike<number>, sorted?: Float64Array): Uint32Array {
  const n = values.length;
  const buckets = Math.max(1, n);
  // pos[b + 1] counts bucket b; after the prefix sum pos[b] is where bucket b starts; after the scatter (which
  // advances pos[b] through bucket b) pos[b] is where it ends, so bucket b spans [pos[b - 1], pos[b]).
  const pos = new Uint32Array(buckets + 1);
  for (let i = 0; i < n; i++) {
    const b = Math.min(buckets - 1, Math.max(0, Math.floor(values[i] * buckets)));
    pos[b + 1]++;
  }
  for (let b = 0; b < buckets; b++) pos[b + 1] += pos[b];
  const out = new Uint32Array(n);
  const sv = sorted ?? new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const b = Math.min(buckets - 1, Math.max(0, Math.floor(v * buckets)));
    const at = pos[b]++;
    out[at] = i;
    sv[at] = v;
  }
  for (let b = 0; b < buckets; b++) {
    const lo = b === 0 ? 0 : pos[b - 1];
    const hi = pos[b];
    const size = hi - lo;
    if (size < 2) continue;
    if (size <= 64) {
      for (let i = lo + 1; i < hi; i++) {
        const x = out[i];
        const v = sv[i];
        let j = i - 1;
        while (j >= lo && sv[j] > v) {
          out[j + 1] = out[j];
          sv[j + 1] = sv[j];
          j--;
        }
        out[j + 1] = x;
        sv[j + 1] = v;
      }
    } else {
      const part = Array.from(out.subarray(lo, hi));
      part.sort((a, c) => values[a] - values[c] || a - c);
      out.set(part, lo);
      for (let i = lo; i < hi; i++) sv[i] = values[out[i]];
    }
  }
  return out;
}
