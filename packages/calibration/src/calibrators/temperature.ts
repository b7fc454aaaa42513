import { NothingLearnedError } from "../errors.js";
import { checkBinary, checkLabelled, rowsOf } from "../input.js";
import { centredLogProbs, softmaxRows } from "./log-probs.js";
import { fitLogistic } from "./logistic.js";
import { checkParam, logit, sigmoid } from "./logit.js";
import type { BinaryCalibrator, FitWarnings, MulticlassCalibrator } from "./types.js";

/** Temperature params: q ∝ p^(1 / temperature) on clipped probabilities. */
export interface TemperatureParams extends FitWarnings {
  temperature: number;
}

const BETA_MIN = 1e-3;
const BETA_MAX = 1e3;

/** Derivatives of the summed NLL in beta = 1 / T over every `stride`-th of the first rows * stride rows. */
function derivatives(
  d: Float64Array,
  g: Float64Array,
  k: number,
  beta: number,
  rows: number,
  stride: number,
) {
  let f1 = 0;
  let f2 = 0;
  let f3 = 0;
  const e = new Float64Array(k);
  for (let r = 0; r < rows; r++) {
    const i = r * stride;
    const base = i * k;
    // exponentials first, in a loop of their own: the moments loop then keeps its sums in registers
    for (let j = 0; j < k; j++) e[j] = Math.exp(beta * d[base + j]);
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let j = 0; j < k; j++) {
      const x = d[base + j];
      const ex = e[j] * x;
      s0 += e[j];
      s1 += ex;
      s2 += ex * x;
      s3 += ex * x * x;
    }
    const mu = s1 / s0;
    const m2 = s2 / s0;
    const m3 = s3 / s0;
    f1 += mu - g[i];
    f2 += m2 - mu * mu;
    f3 += m3 - 3 * mu * m2 + 2 * mu * mu * mu;
  }
  return { f1, f2, f3 };
}

function solveBeta(
  d: Float64Array,
  g: Float64Array,
  k: number,
  rows: number,
  stride: number,
  start: number,
  tol: number,
) {
  let beta = start;
  let lo = BETA_MIN;
  let hi = BETA_MAX;
  for (let it = 0; it < 100; it++) {
    const { f1, f2, f3 } = derivatives(d, g, k, beta, rows, stride);
    if (!(f2 > 0)) return { beta, flat: true };
    if (f1 < 0) lo = beta;
    else hi = beta;
    // Halley's step on f'(beta) = 0 (cubic convergence), kept inside the bracket.
    let step = f1 / f2;
    const h = 1 - (step * f3) / (2 * f2);
    const halley = h > 0.5 && h < 2;
    if (halley) step /= h;
    let next = beta - step;
    let bisected = false;
    if (!(next > lo && next < hi)) {
      next = Math.sqrt(lo * hi);
      bisected = true;
    }
    const change = Math.abs(next - beta) / beta;
    beta = next;
    // After a Halley step of relative size c the error is about c^3 / 2: below tol = 1e-5 it is at machine precision;
    // below 2e-2 (used once warm-started, to save passes over all rows) it is at most about 1e-6 relative.
    if ((halley && !bisected && change < tol) || change < 1e-13 || hi / lo < 1 + 1e-15)
      return { beta, flat: false };
  }
  return { beta, flat: false };
}

/**
 * Temperature scaling: one T on clipped log-probabilities, q ∝ exp(log(max(p, 1e-6)) / T), minimising NLL (Halley's
 * method in 1/T, to machine precision up to 8000 items, to about 1e-6 beyond); it never moves the argmax
 * [Guo et al. 2017].
 */
export function temperatureScaling(): MulticlassCalibrator<TemperatureParams> {
  return {
    name: "temperature",
    fit(data) {
      const n = checkLabelled(data, "temperature.fit");
      if (n === 0) throw new NothingLearnedError();
      const { d, g } = centredLogProbs(data.probs, n, data.k, data.gold);
      let start = 1;
      // warm start on every stride-th row (4000 to 8000 rows), then full-data Halley steps from there
      let tol = 1e-5;
      if (n > 8000) {
        const stride = Math.max(2, Math.floor(n / 8000));
        start = solveBeta(d, g, data.k, Math.floor(n / stride), stride, 1, 1e-5).beta;
        tol = 2e-2;
      }
      const { beta, flat } = solveBeta(d, g, data.k, n, 1, start, tol);
      const params: TemperatureParams = { temperature: flat ? 1 : 1 / beta };
      if (flat)
        params.warnings = ["every row is uniform or certain: the NLL does not depend on T, T = 1 kept"];
      else if (beta <= BETA_MIN * 1.000001 || beta >= BETA_MAX / 1.000001) {
        params.warnings = [`the NLL keeps falling towards T = ${1 / beta}: the fit stopped at its bound`];
      }
      return params;
    },
    apply(params, m) {
      const n = rowsOf(m, "temperature.apply");
      const t = checkParam(params.temperature, "temperature", "temperature.apply");
      if (!(t > 0)) throw new RangeError(`temperature.apply: params.temperature must be positive, got ${t}`);
      return softmaxRows(centredLogProbs(m.probs, n, m.k, null).d, n, m.k, 1 / t, null);
    },
  };
}

/**
 * Temperature scaling of one binary problem (one label): q = sigmoid(logit(p) / T), T by maximum likelihood
 * [Guo et al. 2017].
 */
export function binaryTemperatureScaling(): BinaryCalibrator<TemperatureParams> {
  return {
    name: "temperature",
    fit(data) {
      const n = checkBinary(data, "temperature.fit");
      if (n === 0) throw new NothingLearnedError();
      const x = new Float64Array(n);
      for (let i = 0; i < n; i++) x[i] = logit(data.p[i]);
      const fit = fitLogistic([x], data.y, false, [1]);
      const beta = Math.min(BETA_MAX, Math.max(BETA_MIN, fit.coef[0]));
      const params: TemperatureParams = { temperature: 1 / beta };
      if (beta !== fit.coef[0] || !fit.converged)
        params.warnings = ["the fit did not converge: T stopped at its bound"];
      return params;
    },
    apply(params, p) {
      const t = checkParam(params.temperature, "temperature", "temperature.apply");
      if (!(t > 0)) throw new RangeError(`temperature.apply: params.temperature must be positive, got ${t}`);
      const out = new Float64Array(p.length);
      for (let i = 0; i < p.length; i++) out[i] = sigmoid(logit(p[i]) / t);
      return out;
    },
  };
}
