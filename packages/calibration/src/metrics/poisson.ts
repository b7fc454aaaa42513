import { lnGamma } from "../special.js";

// Seeded Poisson draws for the Poisson bootstrap of smooth ECE. The stream's state is one Int32Array cell, so the
// loops that draw take typed arrays and numbers only (see the README's speed notes). Internal.

/** A mulberry32 stream [Ettinger 2017] whose state lives in s[0]: a float in [0, 1) with 53 random bits. */
export function uniform(s: Int32Array): number {
  let a = (s[0] + 0x6d2b79f5) | 0;
  let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  const hi = (t ^ (t >>> 14)) >>> 0;
  a = (a + 0x6d2b79f5) | 0;
  t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  const lo = (t ^ (t >>> 14)) >>> 0;
  s[0] = a;
  return ((hi >>> 5) * 67108864 + (lo >>> 6)) / 9007199254740992;
}

/**
 * One Poisson(lambda) draw: inversion below lambda = 10, Hormann's transformed rejection with squeeze (PTRS) above,
 * O(1) expected uniforms at any lambda [Hormann 1993, "The transformed rejection method for generating Poisson random
 * variables"].
 */
export function poissonDraw(lambda: number, s: Int32Array): number {
  if (!(lambda > 0)) return 0;
  if (lambda < 10) {
    let x = 0;
    let p = Math.exp(-lambda);
    let cdf = p;
    const u = uniform(s);
    while (u > cdf && x < 1000) {
      x++;
      p *= lambda / x;
      cdf += p;
    }
    return x;
  }
  const slam = Math.sqrt(lambda);
  const logLam = Math.log(lambda);
  const b = 0.931 + 2.53 * slam;
  const a = -0.059 + 0.02483 * b;
  const invAlpha = 1.1239 + 1.1328 / (b - 3.4);
  const vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const u = uniform(s) - 0.5;
    const v = uniform(s);
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (
      Math.log(v) + Math.log(invAlpha) - Math.log(a / (us * us) + b) <=
      -lambda + k * logLam - lnGamma(k + 1)
    ) {
      return k;
    }
  }
}

/** w[a] = a Poisson(count[a]) draw for every a: a Poisson bootstrap of the items that count[a] groups. */
export function poissonWeights(count: Float64Array, s: Int32Array, w: Float64Array): void {
  for (let a = 0; a < count.length; a++) w[a] = count[a] > 0 ? poissonDraw(count[a], s) : 0;
}
