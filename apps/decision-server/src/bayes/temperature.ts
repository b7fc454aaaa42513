/** Fits one temperature to held-out log-scores by minimising the negative log-likelihood. */

/** NLL of gold classes under softmax(scores / t). */
function nll(scores: Float64Array[], gold: number[], t: number): number {
  let sum = 0;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i];
    let m = Number.NEGATIVE_INFINITY;
    for (const v of s) if (v > m) m = v;
    let z = 0;
    for (const v of s) z += Math.exp((v - m) / t);
    sum += Math.log(z) - (s[gold[i]] - m) / t;
  }
  return sum / scores.length;
}

/** The temperature in [0.05, 100] minimising held-out NLL (golden-section search on log t); 1 with no data. */
export function fitTemperature(scores: Float64Array[], gold: number[]): number {
  if (scores.length === 0) return 1;
  const phi = (Math.sqrt(5) - 1) / 2;
  let lo = Math.log(0.05);
  let hi = Math.log(100);
  let a = hi - phi * (hi - lo);
  let b = lo + phi * (hi - lo);
  let fa = nll(scores, gold, Math.exp(a));
  let fb = nll(scores, gold, Math.exp(b));
  for (let i = 0; i < 60; i++) {
    if (fa <= fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - phi * (hi - lo);
      fa = nll(scores, gold, Math.exp(a));
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + phi * (hi - lo);
      fb = nll(scores, gold, Math.exp(b));
    }
  }
  return Math.exp((lo + hi) / 2);
}
