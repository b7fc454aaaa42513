// Sorting helpers for large typed arrays. Internal: not part of the public surface.
//
// Speed notes (V8): every loop over all values is a function of its own, of typed arrays and numbers, with nothing
// after the loop but its result. V8 compiles a long loop while it runs, on the first call; code after it that needs
// type feedback (never run then) made every later call bail out of the compiled loop, and closures made per call,
// once inlined, took the compiled code with them when a garbage collection freed them.

/**
 * The values at the given ascending ranks (0-based order statistics) without sorting everything: a histogram over
 * [min, max] locates the cell holding each rank, and only those cells' values are sorted.
 */
export function orderStatistics(values: ArrayLike<number>, ranks: readonly number[]): Float64Array {
  const n = values.length;
  const out = new Float64Array(ranks.length);
  const min = minOf(values);
  const max = maxOf(values);
  if (!(max > min)) return out.fill(min);
  const cells = Math.min(65536, Math.max(64, n >> 2));
  const scale = cells / (max - min);
  const count = new Uint32Array(cells + 1);
  countCells(values, min, scale, cells, count);
  prefixSums(count); // count[c]: values in cells before c
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
  pickCells(values, min, scale, cells, wanted, Int32Array.from(wanted), picked);
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

function minOf(values: ArrayLike<number>): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < values.length; i++) if (values[i] < min) min = values[i];
  return min;
}

function maxOf(values: ArrayLike<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < values.length; i++) if (values[i] > max) max = values[i];
  return max;
}

/** The histogram cell of v: cells equal parts of [min, max] (scale = cells / (max - min)). */
function cellOf(v: number, min: number, scale: number, cells: number): number {
  return Math.min(cells - 1, Math.floor((v - min) * scale));
}

/** count[c + 1] = the number of values in cell c. */
function countCells(
  values: ArrayLike<number>,
  min: number,
  scale: number,
  cells: number,
  count: Uint32Array,
): void {
  for (let i = 0; i < values.length; i++) count[cellOf(values[i], min, scale, cells) + 1]++;
}

/** The values of the wanted cells (wanted[c] >= 0: where cell c starts in picked), in value order within a cell. */
function pickCells(
  values: ArrayLike<number>,
  min: number,
  scale: number,
  cells: number,
  wanted: Int32Array,
  fill: Int32Array,
  picked: Float64Array,
): void {
  for (let i = 0; i < values.length; i++) {
    const c = cellOf(values[i], min, scale, cells);
    if (wanted[c] >= 0) picked[fill[c]++] = values[i];
  }
}

/** a[i] += a[i - 1] from the second entry on: counts become where each entry's run starts. */
function prefixSums(a: Uint32Array): void {
  for (let i = 1; i < a.length; i++) a[i] += a[i - 1];
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
  countBuckets(values, buckets, pos);
  prefixSums(pos);
  const out = new Uint32Array(n);
  const sv = sorted ?? new Float64Array(n);
  scatter(values, buckets, pos, out, sv);
  sortBuckets(values, buckets, pos, out, sv);
  return out;
}

function bucketOf(v: number, buckets: number): number {
  return Math.min(buckets - 1, Math.max(0, Math.floor(v * buckets)));
}

/** pos[b + 1] = the number of values in bucket b. */
function countBuckets(values: ArrayLike<number>, buckets: number, pos: Uint32Array): void {
  for (let i = 0; i < values.length; i++) pos[bucketOf(values[i], buckets) + 1]++;
}

/** Each index (and its value) to the next free place of its bucket, advancing pos[b] to the bucket's end. */
function scatter(
  values: ArrayLike<number>,
  buckets: number,
  pos: Uint32Array,
  out: Uint32Array,
  sv: Float64Array,
) {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const at = pos[bucketOf(v, buckets)]++;
    out[at] = i;
    sv[at] = v;
  }
}

/** Sorts every bucket [pos[b - 1], pos[b]) of out (and sv along), stably. */
function sortBuckets(
  values: ArrayLike<number>,
  buckets: number,
  pos: Uint32Array,
  out: Uint32Array,
  sv: Float64Array,
): void {
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
    } else sortCrowded(values, out, sv, lo, hi);
  }
}

/** A crowded bucket [lo, hi): comparison sort by value, then index. */
function sortCrowded(
  values: ArrayLike<number>,
  out: Uint32Array,
  sv: Float64Array,
  lo: number,
  hi: number,
): void {
  const part = Array.from(out.subarray(lo, hi));
  part.sort((a, c) => values[a] - values[c] || a - c);
  out.set(part, lo);
  for (let i = lo; i < hi; i++) sv[i] = values[out[i]];
}
