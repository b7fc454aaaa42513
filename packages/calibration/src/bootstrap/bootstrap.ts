import { checkLevel } from "../input.js";
import type { Binary, BootstrapOptions, Estimate, Labelled, MultiLabel } from "../types.js";
import { percentileInterval } from "./percentile.js";
import { mulberry32 } from "./random.js";

export interface ResolvedBootstrap {
  resamples: number;
  seed: number;
  level: number;
}

/** Defaults of every bootstrap (1000 resamples, seed 0, level 0.95), checked. Internal. */
export function bootstrapOptions(opts: BootstrapOptions = {}, fn = "bootstrap"): ResolvedBootstrap {
  const resamples = opts.resamples ?? 1000;
  const seed = opts.seed ?? 0;
  const level = checkLevel(opts.level ?? 0.95, fn);
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`${fn}: resamples must be a positive integer (1000 by default), got ${resamples}`);
  }
  if (!Number.isFinite(seed)) throw new RangeError(`${fn}: seed must be a finite number, got ${seed}`);
  return { resamples, seed, level };
}

function checkN(n: number, fn: string): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${fn}: n must be a positive item count, got ${n}`);
}

/**
 * Seeded nonparametric bootstrap of any statistic over items: the statistic receives the resampled item indices
 * (the identity for the point estimate); percentile interval [Efron 1979; Efron & Tibshirani 1993].
 */
export function bootstrap(
  n: number,
  statistic: (indices: Int32Array) => number,
  opts: BootstrapOptions = {},
): Estimate {
  checkN(n, "bootstrap");
  const o = bootstrapOptions(opts, "bootstrap");
  const identity = new Int32Array(n);
  for (let i = 0; i < n; i++) identity[i] = i;
  const point = statistic(identity);
  const rng = mulberry32(o.seed);
  const values = new Float64Array(o.resamples);
  const idx = new Int32Array(n);
  for (let r = 0; r < o.resamples; r++) {
    for (let i = 0; i < n; i++) idx[i] = rng.below(n);
    values[r] = statistic(idx);
  }
  const [low, high] = percentileInterval(values, o.level);
  return [point, low, high];
}

/**
 * Paired bootstrap of the difference a - b between two runs on the same items: both statistics see the same
 * resampled indices [Efron & Tibshirani 1993; Koehn 2004].
 */
export function pairedBootstrap(
  n: number,
  a: (indices: Int32Array) => number,
  b: (indices: Int32Array) => number,
  opts: BootstrapOptions = {},
): Estimate {
  checkN(n, "pairedBootstrap");
  return bootstrap(n, (idx) => a(idx) - b(idx), opts);
}

/** The rows of predictions at the given indices (repeats allowed): a statistic's input on a resample [Efron 1979]. */
export function subset<T extends Labelled | Binary | MultiLabel>(d: T, indices: ArrayLike<number>): T {
  const m = indices.length;
  if ((d as Binary).p !== undefined) {
    const b = d as Binary;
    const p = new Float64Array(m);
    const y = new Uint8Array(m);
    for (let i = 0; i < m; i++) {
      p[i] = b.p[indices[i]];
      y[i] = b.y[indices[i]];
    }
    return { ...d, p, y };
  }
  const x = d as Labelled & MultiLabel;
  const k = x.k;
  const probs = new Float64Array(m * k);
  for (let i = 0; i < m; i++) probs.set(x.probs.subarray(indices[i] * k, indices[i] * k + k), i * k);
  if (x.gold !== undefined) {
    const gold = new Int32Array(m);
    for (let i = 0; i < m; i++) gold[i] = x.gold[indices[i]];
    return { ...d, probs, gold };
  }
  const labels = new Uint8Array(m * k);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < k; j++) labels[i * k + j] = x.labels[indices[i] * k + j];
  }
  return { ...d, probs, labels };
}
