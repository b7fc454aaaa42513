import { NothingLearnedError } from "../errors.js";
import { fastExp as importedExp, fastLog as importedLog } from "../fast-math.js";
import { checkBinary, checkLabelled, rowsOf } from "../input.js";
import { topLabelUnchecked } from "../views.js";
import { centredLogProbs, softmaxRows } from "./log-probs.js";
import { fitLogistic } from "./logistic.js";
import { checkParam, clippedSigmoid, logit } from "./logit.js";
import { classTargets } from "./soft-targets.js";
import { countPositives, degenerateWarnings, plattTargets, T_FLOOR } from "./targets.js";
import type { BinaryCalibrator, FitWarnings, MulticlassCalibrator } from "./types.js";

/** Temperature params: q ∝ p^(1 / temperature) on clipped probabilities. */
export interface TemperatureParams extends FitWarnings {
  temperature: number;
}

const BETA_MIN = 1e-3;
/** 1 / T_FLOOR: no fit returns T below 0.05. */
const BETA_MAX = 1 / T_FLOOR;

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
  tGold: Float64Array,
  tOther: Float64Array,
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
    let sx = 0;
    for (let j = 0; j < k; j++) {
      const l = fastLog(Math.max(probs[base + j], clip) * inv);
      x[j] = l;
      sx += l;
    }
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
    const c = gold[i];
    const xg = x[c];
    out.f1 += mu - (tGold[c] * xg + tOther[c] * (sx - xg));
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

/**
 * Centred clipped log-probabilities (rowLogs) of every stride-th row, and each such row's target-weighted log
 * sum_j t_j d_j (the smoothed targets: tGold on the gold option, tOther on each other one).
 */
function sampleLogs(
  probs: Float64Array,
  gold: ArrayLike<number>,
  k: number,
  stride: number,
  tGold: Float64Array,
  tOther: Float64Array,
) {
  const rows = Math.floor(gold.length / stride);
  const sample = { d: new Float64Array(rows * k), g: new Float64Array(rows) }; // built first (see the notes above)
  const { d, g } = sample;
  for (let r = 0, at = 0; r < rows; r++, at += k) {
    rowLogs(probs, r * stride * k, k, d, at);
    const c = gold[r * stride];
    let sx = 0;
    for (let j = at; j < at + k; j++) sx += d[j];
    g[r] = tGold[c] * d[at + c] + tOther[c] * (sx - d[at + c]);
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
 * Temperature scaling: one T on clipped log-probabilities, q ∝ exp(log(max(p, 1e-6)) / T), minimising the
 * cross-entropy to smoothed targets (Halley's method in 1/T, to machine precision up to 4000 items, to about 1e-6
 * beyond); it never moves the argmax [Guo et al. 2017]. The targets generalise Platt's (1999): an item whose gold is
 * option c puts (N_c + 1) / (N_c + 2) on c and shares 1 / (N_c + 2) equally among the other options (N_c: fit items
 * with gold c), so T stays finite on all-correct or separable data; T never goes below T_FLOOR = 0.05.
 */
export function temperatureScaling(): MulticlassCalibrator<TemperatureParams> {
  return {
    name: "temperature",
    fit(data) {
      const n = checkLabelled(data, "temperature.fit");
      if (n === 0) throw new NothingLearnedError();
      const k = data.k;
      const { tGold, tOther } = classTargets(data.gold, n, k);
      let result: { beta: number; flat: boolean };
      if (n <= 4000) {
        const { d, g } = sampleLogs(data.probs, data.gold, k, 1, tGold, tOther);
        const derivs = (b: number, out: Derivatives) =>
          inChunks(n, (from, to) => storedDerivatives(d, g, k, b, out, from, to));
        result = solveBeta(derivs, 1, 1e-5);
      } else {
        // warm start on every stride-th row (1000 to 8000 rows, stored logs; its error, about c^3 / 2 after a last step
        // of relative size c < 2e-2, is far below the sample's own), then Halley steps over all rows with logs taken
        // on the fly, stopping once the step leaves an error of about 1e-6 (usually after one pass)
        const stride = Math.floor(n / Math.min(8000, Math.max(1000, Math.floor(n / 10))));
        const { d, g } = sampleLogs(data.probs, data.gold, k, stride, tGold, tOther);
        const warm = solveBeta(
          (b, out) => inChunks(g.length, (from, to) => storedDerivatives(d, g, k, b, out, from, to)),
          1,
          2e-2,
        );
        const x = new Float64Array(k);
        const { probs, gold } = data;
        const derivs = (b: number, out: Derivatives) =>
          inChunks(n, (from, to) => derivativesFromProbs(probs, gold, k, b, x, tGold, tOther, out, from, to));
        result = warm.flat ? warm : solveBeta(derivs, warm.beta, 2e-2);
      }
      const { beta, flat } = result;
      const params: TemperatureParams = { temperature: flat ? 1 : 1 / beta };
      const warnings = multiclassWarnings(data.probs, data.gold, n, k);
      if (flat) warnings.push("every row is uniform or certain: the NLL does not depend on T, T = 1 kept");
      else warnings.push(...boundWarnings(beta));
      if (warnings.length > 0) params.warnings = warnings;
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

/** Each item's clipped logit into x (a loop of its own, nothing after it). */
function logitsOf(p: ArrayLike<number>, x: Float64Array): void {
  for (let i = 0; i < x.length; i++) x[i] = logit(p[i]);
}

/** A warning when 1 / T stopped at a bound: T_FLOOR (sharpening) or 1000 (flattening). */
function boundWarnings(beta: number): string[] {
  if (beta >= BETA_MAX / 1.000001) {
    return [
      `T reached its floor ${T_FLOOR}: the data would sharpen the probabilities further than any finite sample supports`,
    ];
  }
  if (beta <= BETA_MIN * 1.000001)
    return [`T reached its ceiling ${1 / BETA_MIN}: the probabilities carry no signal`];
  return [];
}

/** Degenerate-data warnings of a multiclass fit (all correct or wrong, separable by top-label confidence). Internal. */
export function multiclassWarnings(
  probs: Float64Array,
  gold: ArrayLike<number>,
  n: number,
  k: number,
): string[] {
  const top = topLabelUnchecked(probs, n, k, gold);
  const w = degenerateWarnings(top.p, top.y, n, countPositives(top.y, n));
  return w.map((s) =>
    s
      .replace(/^every outcome is 1/, "every item is correct")
      .replace(/^every outcome is 0/, "every item is wrong")
      .replace(
        "the outcomes are separable by the probability",
        "right and wrong items are separable by confidence",
      )
      .replace("every negative", "every wrong item")
      .replace("every positive", "every right item"),
  );
}

/**
 * Temperature scaling of one binary problem (one label): q = sigmoid(logit(p) / T), T by maximum likelihood on Platt's
 * smoothed targets, never below T_FLOOR = 0.05 [Guo et al. 2017; Platt 1999].
 */
export function binaryTemperatureScaling(): BinaryCalibrator<TemperatureParams> {
  return {
    name: "temperature",
    fit(data) {
      const n = checkBinary(data, "temperature.fit");
      if (n === 0) throw new NothingLearnedError();
      const x = new Float64Array(n);
      logitsOf(data.p, x);
      const { t, pos } = plattTargets(data.y, n);
      const fit = fitLogistic([x], t, false, [1]);
      const beta = Math.min(BETA_MAX, Math.max(BETA_MIN, fit.coef[0]));
      const params: TemperatureParams = { temperature: 1 / beta };
      const warnings = degenerateWarnings(data.p, data.y, n, pos);
      if (beta !== fit.coef[0]) warnings.push(...boundWarnings(beta));
      else if (!fit.converged) warnings.push("the fit did not converge within 200 Newton steps");
      if (warnings.length > 0) params.warnings = warnings;
      return params;
    },
    apply(params, p) {
      const t = checkParam(params.temperature, "temperature", "temperature.apply");
      if (!(t > 0)) throw new RangeError(`temperature.apply: params.temperature must be positive, got ${t}`);
      const out = new Float64Array(p.length);
      for (let i = 0; i < p.length; i++) out[i] = clippedSigmoid(logit(p[i]) / t);
      return out;
    },
  };
}
