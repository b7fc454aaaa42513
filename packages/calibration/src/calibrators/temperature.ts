import { NothingLearnedError } from "../errors.js";
import { fastExp as importedExp, fastLog as importedLog } from "../fast-math.js";
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

interface Derivatives {
  f1: number;
  f2: number;
  f3: number;
}

// Speed notes (V8). The row loops run in calls of at most CHUNK rows: a function compiled as a whole keeps its locals
// as plain doubles, while one long loop is compiled as it runs (on-stack replacement), takes its locals over boxed and
// unboxes them at every use. Inside the loops the constants are literals (the clip 1e-6 = CLIP, and -745.2, below
// which exp is exactly 0, so such terms are skipped) and the kernels module-level copies of the imports: imported
// bindings and a module's constants are read from the module at every use. Nothing after a loop needs type feedback
// (each row is added into `out`; sampleLogs builds its result first): such code, never run when the loop was
// compiled, made it bail out on every call.
const fastExp = importedExp;
const fastLog = importedLog;
/** Rows per call of a row loop. */
const CHUNK = 1024;
/** Up to this beta, log(max(p, 1e-6)) needs no centring: beta * log(1e-6) > -700 keeps every exp a normal number. */
const UNCENTRED_MAX_BETA = 50;

/**
 * Adds the first three derivatives of the summed NLL in beta = 1 / T over rows [from, to), from stored centred
 * log-probabilities d (g: each row's gold entry).
 */
function storedDerivatives(
  d: Float64Array,
  g: Float64Array,
  k: number,
  beta: number,
  out: Derivatives,
  from: number,
  to: number,
): void {
  const zMin = -745.2; // exp(z) === 0 below
  const b = beta + 0; // a new double (see the notes above)
  for (let i = from, base = from * k; i < to; i++, base += k) {
    // moments of d under q ∝ exp(beta d) for this row
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let j = base; j < base + k; j++) {
      const x = d[j];
      const z = b * x;
      if (z < zMin) continue;
      const e = fastExp(z);
      const ex = e * x;
      const ex2 = ex * x;
      s0 += e;
      s1 += ex;
      s2 += ex2;
      s3 += ex2 * x;
    }
    const r0 = 1 / s0;
    const mu = s1 * r0;
    const m2 = s2 * r0;
    out.f1 += mu - g[i];
    out.f2 += m2 - mu * mu;
    out.f3 += s3 * r0 - 3 * mu * m2 + 2 * mu * mu * mu;
  }
}

/**
 * Adds the same derivatives over rows [from, to) straight from the probabilities (no N x K copy): each row's logs
 * into the k scratch values x, then one exp per entry and the moments. Up to beta = 50 the logs are log(max(p, 1e-6))
 * as they are (no row maximum to find: the derivatives do not depend on a row's shift, and every exp stays a normal
 * number); above, they are centred on the row's maximum so that the largest exp is 1.
 */
function derivativesFromProbs(
  probs: Float64Array,
  gold: ArrayLike<number>,
  k: number,
  beta: number,
  x: Float64Array,
  out: Derivatives,
  from: number,
  to: number,
): void {
  const clip = 1e-6; // CLIP
  const zMin = -745.2; // exp(z) === 0 below
  const b = beta + 0;
  const centred = b > UNCENTRED_MAX_BETA;
  for (let i = from, base = from * k; i < to; i++, base += k) {
    let inv = 1;
    if (centred) {
      let pm = clip;
      for (let j = base; j < base + k; j++) pm = Math.max(pm, probs[j]);
      inv = 1 / pm;
    }
    // logs in a loop of their own (independent of each other, so the processor overlaps them), then exps and moments
    for (let j = 0; j < k; j++) x[j] = fastLog(Math.max(probs[base + j], clip) * inv);
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let j = 0; j < k; j++) {
      const xj = x[j];
      const z = b * xj;
      if (z < zMin) continue;
      const e = fastExp(z);
      const ex = e * xj;
      const ex2 = ex * xj;
      s0 += e;
      s1 += ex;
      s2 += ex2;
      s3 += ex2 * xj;
    }
    const r0 = 1 / s0;
    const mu = s1 * r0;
    const m2 = s2 * r0;
    out.f1 += mu - x[gold[i]];
    out.f2 += m2 - mu * mu;
    out.f3 += s3 * r0 - 3 * mu * m2 + 2 * mu * mu * mu;
  }
}

/** Runs a row loop over rows [0, n) in calls of at most CHUNK rows. */
function inChunks(n: number, rows: (from: number, to: number) => void): void {
  for (let from = 0; from < n; from += CHUNK) rows(from, Math.min(n, from + CHUNK));
}

/**
 * Centred clipped log-probabilities of the row at `base`, written to x from `at`: x_j = log(max(p_j, 1e-6) / max_i
 * max(p_i, 1e-6)) (the log of a ratio, one rounding from the exact value before the log), exactly 0 at a maximum.
 */
function rowLogs(probs: Float64Array, base: number, k: number, x: Float64Array, at: number): void {
  const clip = 1e-6; // CLIP
  let pm = clip;
  for (let j = base; j < base + k; j++) pm = Math.max(pm, probs[j]);
  const inv = 1 / pm;
  for (let j = 0; j < k; j++) {
    const p = probs[base + j];
    x[at + j] = p >= pm ? 0 : fastLog(Math.max(p, clip) * inv);
  }
}

/** Centred clipped log-probabilities (rowLogs) of every stride-th row, and each such row's gold entry. */
function sampleLogs(probs: Float64Array, gold: ArrayLike<number>, k: number, stride: number) {
  const rows = Math.floor(gold.length / stride);
  const sample = { d: new Float64Array(rows * k), g: new Float64Array(rows) }; // built first (see the notes above)
  const { d, g } = sample;
  for (let r = 0, at = 0; r < rows; r++, at += k) {
    rowLogs(probs, r * stride * k, k, d, at);
    g[r] = d[at + gold[r * stride]];
  }
  return sample;
}

/** Halley's method on f'(beta) = 0 from `start`, kept inside a bracket; stops once a Halley step is below tol. */
function solveBeta(derivs: (beta: number, out: Derivatives) => void, start: number, tol: number) {
  let beta = start;
  let lo = BETA_MIN;
  let hi = BETA_MAX;
  for (let it = 0; it < 100; it++) {
    const out = { f1: 0, f2: 0, f3: 0 };
    derivs(beta, out);
    const { f1, f2, f3 } = out;
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
        const { d, g } = sampleLogs(data.probs, data.gold, k, 1);
        const derivs = (b: number, out: Derivatives) =>
          inChunks(n, (from, to) => storedDerivatives(d, g, k, b, out, from, to));
        result = solveBeta(derivs, 1, 1e-5);
      } else {
        // warm start on every stride-th row (1000 to 8000 rows, stored logs; its error, about c^3 / 2 after a last step
        // of relative size c < 2e-2, is far below the sample's own), then Halley steps over all rows with logs taken
        // on the fly, stopping once the step leaves an error of about 1e-6 (usually after one pass)
        const stride = Math.floor(n / Math.min(8000, Math.max(1000, Math.floor(n / 10))));
        const { d, g } = sampleLogs(data.probs, data.gold, k, stride);
        const warm = solveBeta(
          (b, out) => inChunks(g.length, (from, to) => storedDerivatives(d, g, k, b, out, from, to)),
          1,
          2e-2,
        );
        const x = new Float64Array(k);
        const { probs, gold } = data;
        const derivs = (b: number, out: Derivatives) =>
          inChunks(n, (from, to) => derivativesFromProbs(probs, gold, k, b, x, out, from, to));
        result = warm.flat ? warm : solveBeta(derivs, warm.beta, 2e-2);
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
