import { reflectedConvolve, roundToGrid } from "../binning/kernel.js";
import { checkBinary, checkNonEmpty } from "../input.js";
import type { Binary } from "../types.js";

function smoothedError(r: Float64Array, sigma: number): number {
  const s = reflectedConvolve(r, sigma);
  return absSum(s) / s.length;
}

/**
 * Sum of |s_i|. A loop with nothing after it but its result: V8 compiles a long loop while it runs, on the first
 * call, and code after it that needs type feedback (never run then) made every later call bail out of it.
 */
function absSum(s: Float64Array): number {
  let total = 0;
  for (let i = 0; i < s.length; i++) total += Math.abs(s[i]);
  return total;
}

/**
 * Smooth ECE: the integral of the kernel-smoothed residual |E[y - f | f]| density, with the bandwidth chosen
 * automatically as the fixed point smECE_sigma = sigma (relplot's smECE, 200-point grid, 10 bisection steps)
 * [Blasiok & Nakkiran 2023].
 */
export function smoothEce(b: Binary): { ece: number; sigma: number } {
  const n = checkBinary(b, "smoothEce");
  checkNonEmpty(n, "smoothEce");
  return smoothEceUnchecked(b, n);
}

/** Smooth ECE of validated data. Internal. */
export function smoothEceUnchecked(b: Binary, n: number): { ece: number; sigma: number } {
  const eps = 0.001;
  let m = 200;
  const grid = () => {
    const r = roundToGrid(b.p, (i) => b.p[i] - b.y[i], m);
    for (let i = 0; i < m; i++) r[i] /= n;
    return r;
  };
  let r = grid();
  const tooSmooth = (alpha: number): boolean => {
    let grow = false;
    while (Math.round(20 / alpha) > m) {
      m *= 4;
      grow = true;
    }
    if (grow) r = grid();
    return alpha < eps || alpha < smoothedError(r, alpha);
  };
  let sigma = 1;
  if (!tooSmooth(1)) {
    let start = 1;
    let end = 0;
    for (let i = 0; i < 10; i++) {
      const mid = (start + end) / 2;
      if (tooSmooth(mid)) end = mid;
      else start = mid;
    }
    sigma = start;
  }
  return { ece: smoothedError(r, sigma), sigma };
}
