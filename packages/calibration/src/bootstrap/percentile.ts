/** Percentile of sorted values with numpy's default linear interpolation (q in [0, 1]). Internal. */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const vi = (n - 1) * q;
  if (vi >= n - 1) return sorted[n - 1];
  const lo = Math.floor(vi);
  const t = vi - lo;
  const a = sorted[lo];
  const b = sorted[lo + 1];
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/** Percentile interval [low, high] of bootstrap replicates at the given level; non-finite replicates are dropped. */
export function percentileInterval(values: ArrayLike<number>, level: number): [number, number] {
  const finite: number[] = [];
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i])) finite.push(values[i]);
  const sorted = Float64Array.from(finite).sort();
  const alpha = 1 - level;
  return [percentileSorted(sorted, alpha / 2), percentileSorted(sorted, 1 - alpha / 2)];
}
