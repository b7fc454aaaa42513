// Reflected-Gaussian kernel smoothing on a grid, the construction of relplot [Blasiok & Nakkiran 2023]. Internal.

/** Spreads each value linearly onto the two nearest points of an m-point grid on [0, 1]. */
export function roundToGrid(f: ArrayLike<number>, v: (i: number) => number, m: number): Float64Array {
  const values = new Float64Array(m);
  const scale = m - 1;
  for (let i = 0; i < f.length; i++) {
    const x = f[i] * scale;
    let b = Math.trunc(x);
    if (b > m - 2) b = m - 2;
    if (b < 0) b = 0;
    const frac = x - b;
    const w = v(i);
    values[b] += (1 - frac) * w;
    values[b + 1] += frac * w;
  }
  return values;
}

/**
 * Convolution of grid values with a Gaussian density of width sigma, reflected at 0 and 1. The kernel is evaluated
 * on the same grid, centred on its middle point, as relplot does; terms beyond 12 sigma (below 1e-31) are skipped.
 */
export function reflectedConvolve(values: Float64Array, sigma: number): Float64Array {
  const m = values.length;
  const ker = new Float64Array(m);
  gaussianOnGrid(sigma, ker);
  const reach = Math.ceil(12 * sigma * (m - 1)) + 2;
  const jMid = Math.round(0.5 * (m - 1));
  const out = new Float64Array(m);
  convolve(values, ker, Math.max(0, jMid - reach), Math.min(m - 1, jMid + reach), out);
  return out;
}

// The two loops of reflectedConvolve are functions of their own with nothing after the loop: V8 compiles a long loop
// while it runs, on the first call, and code after it that needs type feedback (never run then) made every later
// call bail out of the compiled loop.

/** The Gaussian density of width sigma at the grid points j / (m - 1) - 0.5. */
function gaussianOnGrid(sigma: number, ker: Float64Array): void {
  const m = ker.length;
  const step = 1 / (m - 1);
  const norm = Math.sqrt(2 * Math.PI) * sigma;
  const twoVar = 2 * sigma * sigma;
  for (let j = 0; j < m; j++) {
    const t = (j < m - 1 ? j * step : 1) - 0.5;
    ker[j] = Math.exp(-(t * t) / twoVar) / norm;
  }
}

/** out[t] = sum over j in [jLo, jHi] of the values reflected at both ends at t + m / 2 - j, times ker[j]. */
function convolve(
  values: Float64Array,
  ker: Float64Array,
  jLo: number,
  jHi: number,
  out: Float64Array,
): void {
  const m = values.length;
  const half = m >> 1;
  const last = 2 * (m - 1);
  for (let t = 0; t < m; t++) {
    let acc = 0;
    for (let j = jLo; j <= jHi; j++) {
      const u = t + half - j;
      const v = u < 0 ? values[-u] : u < m ? values[u] : values[last - u];
      acc += v * ker[j];
    }
    out[t] = acc;
  }
}

/** Linear interpolation of grid values (grid i / (m - 1)) at the points t. */
export function interpolateGrid(grid: Float64Array, t: ArrayLike<number>): Float64Array {
  const m = grid.length;
  const bucket = 1 / (m - 1);
  const out = new Float64Array(t.length);
  for (let i = 0; i < t.length; i++) {
    let k = Math.trunc(t[i] * (m - 1));
    if (k > m - 2) k = m - 2;
    if (k < 0) k = 0;
    const r = (t[i] - k * bucket) / bucket;
    out[i] = grid[k] * (1 - r) + grid[k + 1] * r;
  }
  return out;
}
