import { NothingLearnedError } from "../errors.js";
import { fastExp, fastLog } from "../fast-math.js";
import { checkLabelled, rowsOf } from "../input.js";
import { centredLogProbs, softmaxRows } from "./log-probs.js";
import { checkParam } from "./logit.js";
import { classTargets } from "./soft-targets.js";
import { T_FLOOR } from "./targets.js";
import { multiclassWarnings } from "./temperature.js";
import type { FitWarnings, MulticlassCalibrator } from "./types.js";

const BETA_MAX = 1 / T_FLOOR;

/** Vector scaling params: q ∝ exp(log(max(p, 1e-6)) / temperature + bias_j), bias[0] = 0. */
export interface VectorParams extends FitWarnings {
  temperature: number;
  bias: number[];
}

/** L2 penalty on the biases, so an option that is never gold keeps a finite bias. */
const RIDGE = 1e-4;

interface State {
  loss: number;
  grad: Float64Array;
  hess: Float64Array;
}

/**
 * Adds every row's terms of the loss (into loss[0]), gradient and Hessian at theta (ridge not included). Nothing
 * follows the row loop: V8 compiles a long loop while it runs, on the first call, and code after it that needs type
 * feedback (never run then) made every later call bail out of the compiled loop.
 */
function addRows(
  d: Float64Array,
  gold: ArrayLike<number>,
  n: number,
  k: number,
  theta: Float64Array,
  tGold: Float64Array,
  tOther: Float64Array,
  loss: Float64Array,
  grad: Float64Array,
  hess: Float64Array,
): void {
  const exp = fastExp; // imported bindings are read from their module at every use: once here
  const log = fastLog;
  const m = k;
  const q = new Float64Array(k);
  for (let i = 0, base = 0; i < n; i++, base += k) {
    let mx = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j++) {
      const z = theta[0] * d[base + j] + (j > 0 ? theta[j] : 0);
      q[j] = z;
      if (z > mx) mx = z;
    }
    let s = 0;
    for (let j = 0; j < k; j++) {
      q[j] = exp(q[j] - mx);
      s += q[j];
    }
    let mu = 0;
    let m2 = 0;
    let sd = 0;
    let sb = 0;
    for (let j = 0; j < k; j++) {
      q[j] /= s;
      mu += q[j] * d[base + j];
      m2 += q[j] * d[base + j] * d[base + j];
      sd += d[base + j];
      if (j > 0) sb += theta[j];
    }
    const g = gold[i];
    const tg = tGold[g];
    const to = tOther[g];
    const bg = g > 0 ? theta[g] : 0;
    // targets: tg on the gold option, to on each other one
    const td = tg * d[base + g] + to * (sd - d[base + g]);
    loss[0] += log(s) + mx - (theta[0] * td + tg * bg + to * (sb - bg));
    grad[0] += mu - td;
    hess[0] += m2 - mu * mu;
    for (let j = 1; j < k; j++) {
      grad[j] += q[j] - (g === j ? tg : to);
      const cross = q[j] * (d[base + j] - mu);
      hess[j] += cross;
      hess[j * m] += cross;
      for (let l = 1; l <= j; l++) {
        const h = (j === l ? q[j] : 0) - q[j] * q[l];
        hess[j * m + l] += h;
        if (l !== j) hess[l * m + j] += h;
      }
    }
  }
}

function evaluate(
  d: Float64Array,
  gold: ArrayLike<number>,
  n: number,
  k: number,
  theta: Float64Array,
  tGold: Float64Array,
  tOther: Float64Array,
): State {
  // theta = [beta, b_1 .. b_{k-1}]; b_0 = 0.
  const m = k;
  const grad = new Float64Array(m);
  const hess = new Float64Array(m * m);
  const sum = new Float64Array(1);
  addRows(d, gold, n, k, theta, tGold, tOther, sum, grad, hess);
  let loss = sum[0];
  for (let j = 1; j < k; j++) {
    loss += 0.5 * RIDGE * theta[j] * theta[j];
    grad[j] += RIDGE * theta[j];
    hess[j * m + j] += RIDGE;
  }
  return { loss, grad, hess };
}

function solve(hess: Float64Array, grad: Float64Array, m: number): Float64Array | null {
  const a = Float64Array.from(hess);
  const x = Float64Array.from(grad);
  for (let c = 0; c < m; c++) {
    let piv = c;
    for (let r = c + 1; r < m; r++) if (Math.abs(a[r * m + c]) > Math.abs(a[piv * m + c])) piv = r;
    if (!(Math.abs(a[piv * m + c]) > 1e-300)) return null;
    if (piv !== c) {
      for (let k = 0; k < m; k++) [a[c * m + k], a[piv * m + k]] = [a[piv * m + k], a[c * m + k]];
      [x[c], x[piv]] = [x[piv], x[c]];
    }
    for (let r = c + 1; r < m; r++) {
      const f = a[r * m + c] / a[c * m + c];
      if (f === 0) continue;
      for (let k = c; k < m; k++) a[r * m + k] -= f * a[c * m + k];
      x[r] -= f * x[c];
    }
  }
  for (let r = m - 1; r >= 0; r--) {
    let s = x[r];
    for (let k = r + 1; k < m; k++) s -= a[r * m + k] * x[k];
    x[r] = s / a[r * m + r];
  }
  return x;
}

/**
 * Vector scaling: one temperature on clipped log-probabilities plus a bias per option, by maximum likelihood on the
 * smoothed targets of temperature scaling ((N_c + 1) / (N_c + 2) on the gold option c, 1 / (N_c + 2) shared by the
 * others; Newton, tiny ridge 1e-4 on the biases, T never below T_FLOOR = 0.05); unlike temperature scaling it can move
 * the argmax [Guo et al. 2017; Platt 1999].
 */
export function vectorScaling(): MulticlassCalibrator<VectorParams> {
  return {
    name: "vector",
    fit(data) {
      const n = checkLabelled(data, "vector.fit");
      if (n === 0) throw new NothingLearnedError();
      const k = data.k;
      const { d } = centredLogProbs(data.probs, n, k, null);
      const { tGold, tOther } = classTargets(data.gold, n, k);
      let theta: Float64Array = new Float64Array(k);
      theta[0] = 1;
      let cur = evaluate(d, data.gold, n, k, theta, tGold, tOther);
      let converged = false;
      for (let it = 0; it < 100 && !converged; it++) {
        const step = solve(cur.hess, cur.grad, k);
        if (!step) break;
        let t = 1;
        let accepted: { theta: Float64Array; state: State } | null = null;
        for (let half = 0; half < 60 && !accepted; half++, t /= 2) {
          const next = theta.map((v, j) => v - t * step[j]);
          if (!(next[0] > 0)) continue;
          next[0] = Math.min(next[0], BETA_MAX); // T never below its floor
          const state = evaluate(d, data.gold, n, k, next, tGold, tOther);
          if (state.loss <= cur.loss + 1e-12 * Math.abs(cur.loss)) accepted = { theta: next, state };
        }
        if (!accepted) break; // no step lowers the loss: at the optimum to machine precision
        let size = 0;
        for (let j = 0; j < k; j++)
          size = Math.max(size, Math.abs(accepted.theta[j] - theta[j]) / Math.max(1, Math.abs(theta[j])));
        theta = accepted.theta;
        cur = accepted.state;
        converged = size < 1e-12;
      }
      const params: VectorParams = { temperature: 1 / theta[0], bias: [0, ...Array.from(theta.subarray(1))] };
      const warnings = multiclassWarnings(data.probs, data.gold, n, k);
      if (theta[0] >= BETA_MAX) {
        warnings.push(
          `T reached its floor ${T_FLOOR}: the data would sharpen the probabilities further than any finite sample supports`,
        );
      } else if (!converged) warnings.push("the fit did not converge within 100 Newton steps");
      if (warnings.length > 0) params.warnings = warnings;
      return params;
    },
    apply(params, m) {
      const n = rowsOf(m, "vector.apply");
      const t = checkParam(params.temperature, "temperature", "vector.apply");
      if (!(t > 0)) throw new RangeError(`vector.apply: params.temperature must be positive, got ${t}`);
      if (!Array.isArray(params.bias) || params.bias.length !== m.k) {
        throw new RangeError(`vector.apply: params.bias must hold one number per option (${m.k})`);
      }
      for (let j = 0; j < m.k; j++) checkParam(params.bias[j], `bias[${j}]`, "vector.apply");
      return softmaxRows(centredLogProbs(m.probs, n, m.k, null).d, n, m.k, 1 / t, params.bias);
    },
  };
}
