// Unpenalised logistic regression by Newton's method with an exact Hessian. Internal.

export interface LogisticFit {
  coef: number[];
  intercept: number;
  converged: boolean;
}

function solve(h: number[][], g: number[]): number[] | null {
  // Gaussian elimination with partial pivoting on a tiny dense system.
  const n = g.length;
  const a = h.map((row, i) => [...row, g[i]]);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[piv][c])) piv = r;
    if (!(Math.abs(a[piv][c]) > 1e-300)) return null;
    [a[c], a[piv]] = [a[piv], a[c]];
    for (let r = c + 1; r < n; r++) {
      const f = a[r][c] / a[c][c];
      for (let k = c; k <= n; k++) a[r][k] -= f * a[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = a[r][n];
    for (let k = r + 1; k < n; k++) s -= a[r][k] * x[k];
    x[r] = s / a[r][r];
  }
  return x;
}

interface Pass {
  loss: number;
  grad: number[];
  hess: number[][];
}

function pass(
  cols: Float64Array[],
  y: ArrayLike<number>,
  theta: number[],
  intercept: boolean,
  rows: Int32Array | null,
): Pass {
  const d = cols.length;
  const m = d + (intercept ? 1 : 0);
  const grad = new Array<number>(m).fill(0);
  const hess = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  const x = new Array<number>(m).fill(1);
  let loss = 0;
  const count = rows ? rows.length : y.length;
  for (let r = 0; r < count; r++) {
    const i = rows ? rows[r] : r;
    let z = intercept ? theta[d] : 0;
    for (let j = 0; j < d; j++) {
      x[j] = cols[j][i];
      z += theta[j] * x[j];
    }
    // loss = log(1 + e^z) - y z ; p = sigmoid(z)
    let p: number;
    if (z >= 0) {
      const e = Math.exp(-z);
      p = 1 / (1 + e);
      loss += z + Math.log1p(e) - y[i] * z;
    } else {
      const e = Math.exp(z);
      p = e / (1 + e);
      loss += Math.log1p(e) - y[i] * z;
    }
    const r0 = p - y[i];
    const w = p * (1 - p);
    for (let a = 0; a < m; a++) {
      grad[a] += r0 * x[a];
      const wa = w * x[a];
      for (let b = 0; b <= a; b++) hess[a][b] += wa * x[b];
    }
  }
  for (let a = 0; a < m; a++) for (let b = a + 1; b < m; b++) hess[a][b] = hess[b][a];
  return { loss, grad, hess };
}

function newton(
  cols: Float64Array[],
  y: ArrayLike<number>,
  start: number[],
  intercept: boolean,
  rows: Int32Array | null,
  maxIter: number,
): { theta: number[]; converged: boolean } {
  let theta = start.slice();
  let cur = pass(cols, y, theta, intercept, rows);
  for (let it = 0; it < maxIter; it++) {
    const step = solve(cur.hess, cur.grad);
    if (!step) return { theta, converged: false };
    let t = 1;
    let next: number[] = theta;
    let nextPass: Pass | null = null;
    for (let half = 0; half < 60; half++) {
      next = theta.map((v, j) => v - t * step[j]);
      nextPass = pass(cols, y, next, intercept, rows);
      if (nextPass.loss <= cur.loss + 1e-12 * Math.abs(cur.loss)) break;
      t /= 2;
    }
    const size = Math.max(...step.map((s, j) => Math.abs(t * s) / Math.max(1, Math.abs(theta[j]))));
    theta = next;
    cur = nextPass!;
    if (size < 1e-14) return { theta, converged: true };
  }
  return { theta, converged: false };
}

/**
 * Maximum-likelihood logistic regression of y on the given feature columns (and an intercept), unpenalised, to
 * machine precision: Newton warm-started on a strided subsample when the data are large.
 */
export function fitLogistic(cols: Float64Array[], y: ArrayLike<number>, intercept = true): LogisticFit {
  const n = y.length;
  const m = cols.length + (intercept ? 1 : 0);
  let start = new Array<number>(m).fill(0);
  if (n > 40000) {
    const stride = Math.floor(n / 20000);
    const rows = new Int32Array(Math.floor(n / stride));
    for (let r = 0; r < rows.length; r++) rows[r] = r * stride;
    start = newton(cols, y, start, intercept, rows, 100).theta;
  }
  const { theta, converged } = newton(cols, y, start, intercept, null, 100);
  return { coef: theta.slice(0, cols.length), intercept: intercept ? theta[cols.length] : 0, converged };
}
