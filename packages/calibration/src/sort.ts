// Sorting helpers for large typed arrays. Internal: not part of the public surface.

/** The values at the given ascending ranks of `values` (0-based order statistics); `values` is reordered. */
export function selectRanks(values: Float64Array, ranks: readonly number[]): Float64Array {
  const out = new Float64Array(ranks.length);
  const stack: [number, number, number, number][] = [[0, values.length - 1, 0, ranks.length - 1]];
  while (stack.length > 0) {
    const [left0, right0, r0, r1] = stack.pop()!;
    if (r0 > r1) continue;
    const left = left0;
    const right = right0;
    if (right - left < 48 || r1 - r0 > (right - left) >>> 3) {
      const part = values.subarray(left, right + 1).sort();
      for (let r = r0; r <= r1; r++) out[r] = part[ranks[r] - left];
      continue;
    }
    // median of three pivot, Hoare partition
    const mid = (left + right) >>> 1;
    const a = values[left];
    const b = values[mid];
    const c = values[right];
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c)); // median of three
    let i = left - 1;
    let j = right + 1;
    for (;;) {
      do i++;
      while (values[i] < pivot);
      do j--;
      while (values[j] > pivot);
      if (i >= j) break;
      const t = values[i];
      values[i] = values[j];
      values[j] = t;
    }
    // [left, j] <= pivot <= [j+1, right]
    if (j < left || j >= right) {
      const part = values.subarray(left, right + 1).sort();
      for (let r = r0; r <= r1; r++) out[r] = part[ranks[r] - left];
      continue;
    }
    let split = r0;
    while (split <= r1 && ranks[split] <= j) split++;
    stack.push([left, j, r0, split - 1]);
    stack.push([j + 1, right, split, r1]);
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
