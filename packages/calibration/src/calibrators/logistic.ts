// Unpenalised logistic regression on one or two features (plus an optional intercept) by Newton's method with the
// exact Hessian, to machine precision. Internal.
import { fastExp } from "../fast-math.js";

export interface LogisticFit {
  coef: number[];
  intercept: number;
  converged: boolean;
}

interface Moments {
  /** gradient (length m) and Hessian (m x m, row-major) of the summed loss; loss when asked. */
  grad: Float64Array;
  hess: Float64Array;
  loss: number;
}

/**
 * The sums of one pass, into acc: g0, g1, gc (r x0, r x1, r), h00, h01, h0c, h11, h1c, hcc (w x x'), loss. Stored at
 * the end of every block of rows and nothing after the loop: V8 compiles a long loop while it runs, on the first call,
 * and code after it that needs type feedback (the writes into the result object, never run then) made every later
 * call bail out of the compiled loop.
 */
function momentSums(
  x0: Float64Array,
  x1: Float64Array,
  two: boolean,
  y: ArrayLike<number>,
  t0: number,
  t1: number,
  c: number,
  withLoss: boolean,
  acc: Float64Array,
): void {
  const n = y.length;
  const exp = fastExp; // an imported binding is read from its module at every use: once here
  let loss = 0;
  // accumulators: first-order sums r * x, second-order sums w * x x'
  let g0 = 0;
  let g1 = 0;
  let gc = 0;
  let h00 = 0;
  let h01 = 0;
  let h0c = 0;
  let h11 = 0;
  let h1c = 0;
  let hcc = 0;
  for (let start = 0; start < n; start += 1024) {
    const end = Math.min(n, start + 1024);
    for (let i = start; i < end; i++) {
      const a = x0[i];
      const b = x1[i];
      const z = t0 * a + (two ? t1 * b : 0) + c;
      const e = exp(-Math.abs(z));
      const p = z >= 0 ? 1 / (1 + e) : e / (1 + e);
      const yi = y[i];
      if (withLoss) loss += Math.max(z, 0) + Math.log1p(e) - yi * z;
      const r = p - yi;
      const w = p * (1 - p);
      g0 += r * a;
      gc += r;
      h00 += w * a * a;
      h0c += w * a;
      hcc += w;
      if (two) {
        g1 += r * b;
        h01 += w * a * b;
        h11 += w * b * b;
        h1c += w * b;
      }
    }
    acc[0] = g0;
    acc[1] = g1;
    acc[2] = gc;
    acc[3] = h00;
    acc[4] = h01;
    acc[5] = h0c;
    acc[6] = h11;
    acc[7] = h1c;
    acc[8] = hcc;
    acc[9] = loss;
  }
}

/**
 * One pass over the data at theta = [coef..., intercept?]: gradient and Hessian of sum log(1 + e^z) - y z, and the
 * loss itself when `withLoss` (an extra log1p per item, needed only while steps are large).
 */
function moments(
  cols: Float64Array[],
  y: ArrayLike<number>,
  theta: Float64Array,
  intercept: boolean,
  withLoss: boolean,
  out: Moments,
): void {
  const d = cols.length;
  const m = out.grad.length;
  out.grad.fill(0);
  out.hess.fill(0);
  const acc = new Float64Array(10);
  momentSums(
    cols[0],
    d > 1 ? cols[1] : cols[0],
    d > 1,
    y,
    theta[0],
    d > 1 ? theta[1] : 0,
    intercept ? theta[d] : 0,
    withLoss,
    acc,
  );
  const [g0, g1, gc, h00, h01, h0c, h11, h1c, hcc, loss] = acc;
  const g = out.grad;
  const h = out.hess;
  // layout: [x0, x1?, intercept?]
  const ic = d; // intercept index
  g[0] = g0;
  h[0] = h00;
  if (d > 1) {
    g[1] = g1;
    h[1] = h01;
    h[m] = h01;
    h[m + 1] = h11;
  }
  if (intercept) {
    g[ic] = gc;
    h[ic] = h0c;
    h[ic * m] = h0c;
    if (d > 1) {
      h[m + ic] = h1c;
      h[ic * m + 1] = h1c;
    }
    h[ic * m + ic] = hcc;
  }
  out.loss = loss;
}

function solve(h: Float64Array, g: Float64Array, m: number): Float64Array | null {
  const a = Float64Array.from(h);
  const x = Float64Array.from(g);
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
 * Maximum-likelihood logistic regression of y on one or two feature columns (and an intercept), started at `start`
 * (coefficients then intercept): Newton steps, backtracking on the loss while far from the optimum.
 */
export function fitLogistic(
  cols: Float64Array[],
  y: ArrayLike<number>,
  intercept = true,
  start?: number[],
): LogisticFit {
  const d = cols.length;
  if (d < 1 || d > 2) throw new RangeError("fitLogistic: one or two feature columns");
  const m = d + (intercept ? 1 : 0);
  let theta = Float64Array.from(start ?? new Array<number>(m).fill(0));
  const cur: Moments = { grad: new Float64Array(m), hess: new Float64Array(m * m), loss: 0 };
  const trial: Moments = { grad: new Float64Array(m), hess: new Float64Array(m * m), loss: 0 };
  const n = y.length;
  let converged = false;
  // One pass per Newton step: the full step is taken and the next pass checks the loss went down (backtracking
  // from the previous point if not). Close to the optimum (Newton decrement below 1e-8 per item) the loss, an
  // extra log1p per item, is no longer computed: full steps are safe there.
  moments(cols, y, theta, intercept, true, cur);
  let curHasLoss = true;
  for (let it = 0; it < 200 && !converged; it++) {
    const step = solve(cur.hess, cur.grad, m);
    if (!step) break;
    let decrement = 0;
    for (let j = 0; j < m; j++) decrement += step[j] * cur.grad[j];
    const check = decrement > 1e-8 * n;
    if (check && !curHasLoss) {
      moments(cols, y, theta, intercept, true, cur);
      curHasLoss = true;
    }
    if (!check) {
      // in the quadratic region: a full step of relative size below 1e-8 leaves an O(1e-16) error, no pass needed
      let size = 0;
      for (let j = 0; j < m; j++) size = Math.max(size, Math.abs(step[j]) / Math.max(1, Math.abs(theta[j])));
      if (size < 1e-8) {
        theta = theta.map((v, j) => v - step[j]);
        converged = true;
        break;
      }
    }
    let t = 1;
    let next = theta;
    for (let half = 0; half < 60; half++) {
      next = theta.map((v, j) => v - t * step[j]);
      moments(cols, y, next, intercept, check, trial);
      if (!check || trial.loss <= cur.loss) break;
      t /= 2;
    }
    let size = 0;
    for (let j = 0; j < m; j++)
      size = Math.max(size, Math.abs(t * step[j]) / Math.max(1, Math.abs(theta[j])));
    theta = next;
    cur.grad.set(trial.grad);
    cur.hess.set(trial.hess);
    cur.loss = trial.loss;
    curHasLoss = check;
    // after a full Newton step of relative size s the error is O(s^2): below 1e-8 it is at machine precision
    converged = (t === 1 && size < 1e-8) || size < 1e-15;
  }
  return { coef: Array.from(theta.subarray(0, d)), intercept: intercept ? theta[d] : 0, converged };
}
