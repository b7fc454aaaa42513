import { mulberry32 } from "../src/bootstrap/random.js";

/** Seeded binary data: p ~ Beta-like on (0, 1), y ~ Bernoulli(p^1.3) (a little overconfident). */
export function binaryData(n: number, seed: number): { p: Float64Array; y: Uint8Array } {
  const rng = mulberry32(seed);
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const u = rng.float();
    p[i] = u * u * (3 - 2 * u);
    y[i] = rng.float() < p[i] ** 1.3 ? 1 : 0;
  }
  return { p, y };
}

/** Seeded multiclass data: logits ~ N(0, 1.5^2), gold ~ softmax(logits), reported softmax(logits / 0.6). */
export function multiclassData(
  n: number,
  k: number,
  seed: number,
): { probs: Float64Array; k: number; gold: Int32Array } {
  const rng = mulberry32(seed);
  const probs = new Float64Array(n * k);
  const gold = new Int32Array(n);
  const z = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    let mx = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j++) {
      z[j] = 1.5 * Math.sqrt(-2 * Math.log(1 - rng.float())) * Math.cos(2 * Math.PI * rng.float());
      if (z[j] > mx) mx = z[j];
    }
    let s = 0;
    let st = 0;
    for (let j = 0; j < k; j++) {
      s += Math.exp(z[j] - mx);
      st += Math.exp((z[j] - mx) / 0.6);
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
    for (let j = 0; j < k; j++) probs[i * k + j] = Math.exp((z[j] - mx) / 0.6) / st;
  }
  return { probs, k, gold };
}
