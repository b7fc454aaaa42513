import { NothingLearnedError } from "../errors.js";
import { checkBinary, checkLabelled, rowsOf } from "../input.js";
import { centredLogProbs, softmaxRows } from "./log-probs.js";
import { fitLogistic } from "./logistic.js";
import { CLIP, checkParam, logit, sigmoid } from "./logit.js";
import type { BinaryCalibrator, FitWarnings, MulticlassCalibrator } from "./types.js";

/** Temperature params: q ∝ p^(1 / temperature) on clipped probabilities. */
export interface TemperatureParams extends FitWarnings {
  temperature: number;
}

const BETA_MIN = 1e-3;
const BETA_MAX = 1e3;

interface Derivatives {
  f1: number;
  f2: number;
  f3: number;
}

/** Moments of d under q ∝ exp(beta d) for one row (e holds the exponentials), folded into the NLL derivatives. */
function addRow(out: Derivatives, e: Float64Array, x: Float64Array, k: number, gold: number): void {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let j = 0; j < k; j++) {
    const ex = e[j] * x[j];
    s0 += e[j];
    s1 += ex;
    s2 += ex * x[j];
    s3 += ex * x[j] * x[j];
  }
  const mu = s1 / s0;
  const m2 = s2 / s0;
  const m3 = s3 / s0;
  out.f1 += mu - gold;
  out.f2 += m2 - mu * mu;
  out.f3 += m3 - 3 * mu * m2 + 2 * mu * mu * mu;
}

/** First three derivatives of the summed NLL in beta = 1 / T, from stored centred log-probabilities d. */
function storedDerivatives(d: Float64Array, g: Float64Array, k: number, beta: number): Derivatives {
  const out = { f1: 0, f2: 0, f3: 0 };
  const e = new Float64Array(k);
  const x = new Float64Array(k);
  const rows = g.length;
  for (let i = 0, base = 0; i < rows; i++, base += k) {
    // exponentials in a loop of their own: the moments loop then keeps its sums in registers
    for (let j = 0; j < k; j++) {
      x[j] = d[base + j];
      e[j] = Math.exp(beta * x[j]);
    }
    addRow(out, e, x, k, g[i]);
  }
  return out;
}

/** The same derivatives straight from the probabilities (logs computed on the fly: no N x K copy). */
function derivativesFromProbs(
  probs: Float64Array,
  gold: ArrayLike<number>,
  k: number,
  beta: number,
): Derivatives {
  const out = { f1: 0, f2: 0, f3: 0 };
  const e = new Float64Array(k);
  const x = new Float64Array(k);
  const n = gold.length;
  const logClip = Math.log(CLIP);
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let mx = probs[base];
    for (let j = 1; j < k; j++) if (probs[base + j] > mx) mx = probs[base + j];
    const lmax = mx > CLIP ? Math.log(mx) : logClip;
    for (let j = 0; j < k; j++) {
      const p = probs[base + j];
      x[j] = (p > CLIP ? Math.log(p) : logClip) - lmax;
    }
    for (let j = 0; j < k; j++) e[j] = Math.exp(beta * x[j]);
    addRow(out, e, x, k, x[gold[i]]);
  }
  return out;
}

/** Halley's method on f'(beta) = 0 from `start`, kept inside a bracket; stops once a Halley step is below tol. */
function solveBeta(derivs: (beta: number) => Derivatives, start: number, tol: number) {
  let beta = start;
  let lo = BETA_MIN;
  let hi = BETA_MAX;
  for (let it = 0; it < 100; it++) {
    const { f1, f2, f3 } = derivs(beta);
    if (!(f2 > 0)) return { beta, flat: true };
    if (f1 < 0) lo = beta;
    else hi = beta;
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

/** Every stride-th row of the data, as its own (small) question. */
function sampleRows(probs: Float64Array, gold: ArrayLike<number>, k: number, stride: number) {
  const rows = Math.floor(gold.length / stride);
  const sp = new Float64Array(rows * k);
  const sg = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    sp.set(probs.subarray(r * stride * k, r * stride * k + k), r * k);
    sg[r] = gold[r * stride];
  }
  return { sp, sg, rows };
}

/**
 * Temperature scaling: one T on clipped log-probabilities, q ∝ exp(log(max(p, 1e-6)) / T), minimising NLL (Halley's
 * method in 1/T, to machine precision up to 4000 items, to about 1e-6 beyond); it never moves the argmax
 * [Guo et al. 2017].
 */
export function temperatureScaling(): MulticlassCalibrator<TemperatureParams> {
  return {
    name: "temperature",
    fit(data) {
      const n = checkLabelled(data, "temperature.fit");
      if (n === 0) throw new NothingLearnedError();
      const k = data.k;
      let result: { beta: number; flat: boolean };
      if (n <= 4000) {
        const { d, g } = centredLogProbs(data.probs, n, k, data.gold);
        result = solveBeta((b) => storedDerivatives(d, g, k, b), 1, 1e-5);
      } else {
        // warm start on every stride-th row (1000 to 8000 rows, stored logs), then Halley steps over all rows with
        // logs taken on the fly, stopping once the step leaves an error of about 1e-6 (usually after one pass)
        const stride = Math.floor(n / Math.min(8000, Math.max(1000, Math.floor(n / 10))));
        const { sp, sg, rows } = sampleRows(data.probs, data.gold, k, stride);
        const { d, g } = centredLogProbs(sp, rows, k, sg);
        const warm = solveBeta((b) => storedDerivatives(d, g, k, b), 1, 1e-5);
        result = warm.flat
          ? warm
          : solveBeta((b) => derivativesFromProbs(data.probs, data.gold, k, b), warm.beta, 2e-2);
      }
      const { beta, flat } = result;
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
