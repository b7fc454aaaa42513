// Seeded Poisson draws for the Poisson bootstrap of smooth ECE. The stream's state is one Int32Array cell, so the
// loops that draw take typed arrays and numbers only (see the README's speed notes). Internal.

/** A mulberry32 stream [Ettinger 2017] whose state lives in s[0]: a float in (0, 1) with 32 random bits. */
function uniform32(s: Int32Array): number {
  const a = (s[0] + 0x6d2b79f5) | 0;
  s[0] = a;
  let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
}

/** log k! of 0..9. */
const LOG_FACTORIAL = Float64Array.from({ length: 10 }, (_, k) => {
  let f = 0;
  for (let i = 2; i <= k; i++) f += Math.log(i);
  return f;
});

/** log k! for an integer k >= 0: a table below 10, Stirling's series with three corrections above (error < 1e-12). */
function logFactorial(k: number): number {
  if (k < 10) return LOG_FACTORIAL[k];
  const r = 1 / k;
  const r2 = r * r;
  return k * Math.log(k) - k + 0.5 * Math.log(2 * Math.PI * k) + r * (1 / 12 - r2 * (1 / 360 - r2 / 1260));
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
    const u = uniform32(s);
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
  const logInvAlpha = Math.log(1.1239 + 1.1328 / (b - 3.4));
  const vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const u = uniform32(s) - 0.5;
    const v = uniform32(s);
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (Math.log(v) + logInvAlpha - Math.log(a / (us * us) + b) <= -lambda + k * logLam - logFactorial(k)) {
      return k;
    }
  }
}

/** w[a] = a Poisson(count[a]) draw for every a: a Poisson bootstrap of the items that count[a] groups. */
export function poissonWeights(count: Float64Array, s: Int32Array, w: Float64Array): void {
  for (let a = 0; a < count.length; a++) w[a] = count[a] > 0 ? poissonDraw(count[a], s) : 0;
}
