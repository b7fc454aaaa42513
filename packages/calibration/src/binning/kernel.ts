// Reflected-Gaussian kernel smoothing on a grid, the construction of relplot [Blasiok & Nakkiran 2023; relplot's
// kernels.py, github.com/apple/ml-calibration]. Internal.
//
// Values at points f_i in [0, 1] are spread linearly onto the two nearest points of an m-point grid i / (m - 1)
// (m = floor(max(2000, round(20 / sigma)) / 2) + 1); the grid is reflected at both ends (once, the end points not
// repeated) and convolved with the Gaussian density of width sigma sampled on the same grid and cut at +-0.5 (the
// kernel array is the grid itself, centred on its middle point); the result is read at any t by linear interpolation.
// Every loop is a function of typed arrays and numbers with nothing after its loop (see the README's speed notes).

/** Python's round(): halves go to the even neighbour (relplot computes its grid sizes with it). */
export function pyRound(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Size of the grid relplot smooths on at bandwidth sigma: floor(max(2000, round(20 / sigma)) / 2) + 1. */
export function smoothingGridSize(sigma: number): number {
  return Math.floor(Math.max(2000, pyRound(20 / sigma)) / 2) + 1;
}

/**
 * Spreads pCoef * p_i + yCoef * y_i (into num) and 1 (into den) linearly onto the two nearest points of the grid of
 * num's length (relplot's smooth_round_to_grid). num and den are zeroed first.
 */
export function roundOntoGrid(
  p: ArrayLike<number>,
  y: ArrayLike<number>,
  pCoef: number,
  yCoef: number,
  num: Float64Array,
  den: Float64Array,
): void {
  const m = num.length;
  num.fill(0);
  den.fill(0);
  const scale = m - 1;
  const n = p.length;
  for (let i = 0; i < n; i++) {
    const x = p[i] * scale;
    let b = Math.trunc(x);
    if (b > m - 2) b = m - 2;
    if (b < 0) b = 0;
    const frac = x - b;
    const w = pCoef * p[i] + yCoef * y[i];
    num[b] += (1 - frac) * w;
    num[b + 1] += frac * w;
    den[b] += 1 - frac;
    den[b + 1] += frac;
  }
}

/** The Gaussian density of width sigma at the grid points j / (m - 1) - 0.5 (relplot's kernel_ev). */
export function gaussianOnGrid(sigma: number, ker: Float64Array): void {
  const m = ker.length;
  const step = 1 / (m - 1);
  const norm = Math.sqrt(2 * Math.PI) * sigma;
  const twoVar = 2 * sigma * sigma;
  for (let j = 0; j < m; j++) {
    const t = (j < m - 1 ? j * step : 1) - 0.5;
    ker[j] = Math.exp(-(t * t) / twoVar) / norm;
  }
}

/**
 * The grid points (of an m-point grid) that linear interpolation at the mesh linspace(0, 1, points) reads, in
 * increasing order: the only points where a smoothing needs to be computed.
 */
export function meshGridPoints(m: number, points: number): Int32Array {
  const marks = new Uint8Array(m);
  markMeshGridPoints(marks, points);
  let count = 0;
  for (let k = 0; k < m; k++) count += marks[k];
  const at = new Int32Array(count);
  for (let k = 0, c = 0; k < m; k++) if (marks[k]) at[c++] = k;
  return at;
}

function markMeshGridPoints(marks: Uint8Array, points: number): void {
  const m = marks.length;
  const step = 1 / (points - 1);
  for (let i = 0; i < points; i++) {
    const t = i < points - 1 ? i * step : 1;
    let k = Math.trunc(t * (m - 1));
    if (k > m - 2) k = m - 2;
    if (k < 0) k = 0;
    marks[k] = 1;
    marks[k + 1] = 1;
  }
}

/**
 * outA / outB at the grid points `at` = grid values a / b reflected at both ends, convolved with ker (relplot's
 * ReflectedGaussianKernel convolve): out[t] = sum over j of a[t + floor(m / 2) - j] * ker[j]; other points of outA /
 * outB are left as they were. Kernel terms beyond 9 sigma (below 3e-18 of the peak, under a double's rounding of the
 * sum) are skipped. m is odd on relplot's grids, so the kernel is symmetric about its middle point and the two terms
 * at the same distance share one multiplication.
 */
export function reflectedConvolveAt(
  a: Float64Array,
  b: Float64Array,
  ker: Float64Array,
  sigma: number,
  at: Int32Array,
  outA: Float64Array,
  outB: Float64Array,
): void {
  const m = a.length;
  const half = m >> 1;
  const last = 2 * (m - 1);
  const wanted = Math.ceil(9 * sigma * (m - 1)) + 1;
  const reach = Math.min(half, m - 1 - half, wanted);
  const odd = (m & 1) === 1;
  const corner = !odd && wanted >= half;
  for (let c = 0; c < at.length; c++) {
    const t = at[c];
    let accA = ker[half] * a[t];
    let accB = ker[half] * b[t];
    for (let d = 1; d <= reach; d++) {
      const lo = t - d;
      const hi = t + d;
      const kl = lo < 0 ? -lo : lo;
      const kh = hi < m ? hi : last - hi;
      if (odd) {
        const w = ker[half + d];
        accA += w * (a[kl] + a[kh]);
        accB += w * (b[kl] + b[kh]);
      } else {
        // an even grid's kernel is not symmetric about index half: term j = half + d reads t - d, j = half - d reads t + d
        accA += ker[half + d] * a[kl] + ker[half - d] * a[kh];
        accB += ker[half + d] * b[kl] + ker[half - d] * b[kh];
      }
    }
    if (corner) {
      // an even grid's term j = 0 (reading t + half), which has no partner at j = 2 half
      const hi = t + half;
      const kh = hi < m ? hi : last - hi;
      accA += ker[0] * a[kh];
      accB += ker[0] * b[kh];
    }
    outA[t] = accA;
    outB[t] = accB;
  }
}

/** Linear interpolation of grid values (grid i / (m - 1)) at the points t (relplot's interpolate). */
export function interpolateGrid(grid: Float64Array, t: ArrayLike<number>): Float64Array {
  const out = new Float64Array(t.length);
  interpolateInto(grid, t, out);
  return out;
}

function interpolateInto(grid: Float64Array, t: ArrayLike<number>, out: Float64Array): void {
  const m = grid.length;
  const bucket = 1 / (m - 1);
  for (let i = 0; i < t.length; i++) {
    let k = Math.trunc(t[i] * (m - 1));
    if (k > m - 2) k = m - 2;
    if (k < 0) k = 0;
    const r = (t[i] - k * bucket) / bucket;
    out[i] = grid[k] * (1 - r) + grid[k + 1] * r;
  }
}

/** numpy's linspace(0, 1, points). */
export function unitMesh(points: number): Float64Array {
  const t = new Float64Array(points);
  const step = 1 / (points - 1);
  for (let i = 0; i < points; i++) t[i] = i < points - 1 ? i * step : 1;
  return t;
}

/**
 * Sums over the mesh linspace(0, 1, points) of |num(t)| (into out[0]) and den(t) + eps (into out[1]), both grids read
 * by linear interpolation: relplot's smooth_ece is out[0] / out[1] (its sum of |smoothed residual| x density over
 * the sum of densities, the two eps-shifted densities cancelling in the numerator).
 */
export function meshSums(
  num: Float64Array,
  den: Float64Array,
  points: number,
  eps: number,
  out: Float64Array,
): void {
  const m = num.length;
  const bucket = 1 / (m - 1);
  const step = 1 / (points - 1);
  let sNum = 0;
  let sDen = 0;
  for (let i = 0; i < points; i++) {
    const t = i < points - 1 ? i * step : 1;
    let k = Math.trunc(t * (m - 1));
    if (k > m - 2) k = m - 2;
    if (k < 0) k = 0;
    const r = (t - k * bucket) / bucket;
    sNum += Math.abs(num[k] * (1 - r) + num[k + 1] * r);
    sDen += den[k] * (1 - r) + den[k + 1] * r + eps;
    out[0] = sNum;
    out[1] = sDen;
  }
}
