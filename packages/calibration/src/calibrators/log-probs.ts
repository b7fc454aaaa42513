import { fastExp, fastLog } from "../fast-math.js";
import { CLIP } from "./logit.js";

/**
 * Row-centred clipped log-probabilities d_ij = log(max(p_ij, 1e-6)) - max_j log(max(p_ij, 1e-6)) (all <= 0), and
 * the gold entry of each row when gold is given. Internal.
 */
export function centredLogProbs(
  probs: Float64Array,
  n: number,
  k: number,
  gold: ArrayLike<number> | null,
): { d: Float64Array; g: Float64Array } {
  const d = new Float64Array(n * k);
  const g = new Float64Array(gold ? n : 0);
  centre(probs, n, k, gold, d, g);
  return { d, g };
}

/**
 * The loop of centredLogProbs, with nothing after it: V8 compiles a long loop while it runs, on the first call, and
 * code after it that needs type feedback (the result's object literal, never run then) made every later call bail
 * out of the compiled loop.
 */
function centre(
  probs: Float64Array,
  n: number,
  k: number,
  gold: ArrayLike<number> | null,
  d: Float64Array,
  g: Float64Array,
): void {
  const log = fastLog; // imported bindings are read from their module at every use: once here
  const clip = CLIP;
  const logClip = log(clip);
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let mx = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j++) {
      const p = probs[base + j];
      const l = p > clip ? log(p) : logClip;
      d[base + j] = l;
      if (l > mx) mx = l;
    }
    for (let j = 0; j < k; j++) d[base + j] -= mx;
    if (gold) g[i] = d[base + gold[i]];
  }
}

/**
 * Softmax of beta * d_ij + bias_j row by row (bias optional), each entry then kept at or above 1e-6 and the row
 * renormalised, into a new N x K array. Internal.
 */
export function softmaxRows(
  d: Float64Array,
  n: number,
  k: number,
  beta: number,
  bias: ArrayLike<number> | null,
): Float64Array {
  const out = new Float64Array(n * k);
  const clip = 1e-6; // CLIP
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let mx = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j++) {
      const z = beta * d[base + j] + (bias ? bias[j] : 0);
      out[base + j] = z;
      if (z > mx) mx = z;
    }
    let s = 0;
    for (let j = 0; j < k; j++) {
      const e = fastExp(out[base + j] - mx);
      out[base + j] = e;
      s += e;
    }
    // then every entry kept at or above 1e-6 (the clip of the inputs) and the row renormalised: no option ever gets
    // exactly 0 or 1
    let s2 = 0;
    for (let j = 0; j < k; j++) {
      const q = Math.max(out[base + j] / s, clip);
      out[base + j] = q;
      s2 += q;
    }
    for (let j = 0; j < k; j++) out[base + j] /= s2;
  }
  return out;
}
