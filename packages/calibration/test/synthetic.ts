import { mulberry32 } from "../src/bootstrap/random.js";

/**
 * Synthetic multiclass predictions: logits ~ N(0, scale^2), gold drawn from softmax(logits), reported probabilities
 * softmax(logits / temperature). temperature = 1 is perfectly calibrated, T < 1 overconfident, T > 1
 * underconfident; temperature scaling of the reported probabilities recovers 1 / T.
 */
export function synthetic(opts: SyntheticOptions): {
  probs: Float64Array;
  k: number;
  gold: Int32Array;
} {
  const { probs, k, gold } = syntheticWithTruth(opts);
  return { probs, k, gold };
}

export interface SyntheticOptions {
  n: number;
  k: number;
  temperature: number;
  seed: number;
  scale?: number;
}

/** synthetic() and the true class probabilities softmax(logits) the gold labels were drawn from (N x K). */
export function syntheticWithTruth(opts: SyntheticOptions): {
  probs: Float64Array;
  k: number;
  gold: Int32Array;
  truth: Float64Array;
} {
  const { n, k, temperature, seed } = opts;
  const scale = opts.scale ?? 1.5;
  const rng = mulberry32(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng.float())) * Math.cos(2 * Math.PI * rng.float());
  const probs = new Float64Array(n * k);
  const gold = new Int32Array(n);
  const truth = new Float64Array(n * k);
  const z = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    let mx = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j++) {
      z[j] = normal() * scale;
      mx = Math.max(mx, z[j]);
    }
    let s = 0;
    let st = 0;
    for (let j = 0; j < k; j++) {
      s += Math.exp(z[j] - mx);
      st += Math.exp((z[j] - mx) / temperature);
    }
    let u = rng.float() * s;
    gold[i] = k - 1;
    for (let j = 0; j < k; j++) {
      u -= Math.exp(z[j] - mx);
      if (u < 0) {
        gold[i] = j;
        break;
      }
    }
    for (let j = 0; j < k; j++) {
      probs[i * k + j] = Math.exp((z[j] - mx) / temperature) / st;
      truth[i * k + j] = Math.exp(z[j] - mx) / s;
    }
  }
  return { probs, k, gold, truth };
}
