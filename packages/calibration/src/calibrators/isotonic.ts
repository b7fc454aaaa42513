import { NothingLearnedError } from "../errors.js";
import { checkBinary } from "../input.js";
import { argsortUnit } from "../sort.js";
import { countPositives, degenerateWarnings, targetRange } from "./targets.js";
import type { BinaryCalibrator, FitWarnings } from "./types.js";

/** Isotonic params: the fitted step function's knots, linearly interpolated between, clipped outside. */
export interface IsotonicParams extends FitWarnings {
  x: number[];
  y: number[];
}

/** scikit-learn merges x values closer than numpy.finfo(float64).resolution into one. */
const RESOLUTION = 1e-15;

// Each loop over all items below is a function of its own, of typed arrays and numbers, and nothing follows the loop
// but its result: V8 compiles a long loop while it runs, on the first call, and code after it that needs type
// feedback (never run then) made every later call bail out of the compiled loop.

/** Pool-adjacent-violators in place on y with weights w (non-decreasing fit), scikit-learn's single-pass variant. */
function pav(y: Float64Array, w: Float64Array): void {
  const target = new Int32Array(y.length);
  identity(target);
  pool(y, w, target);
  spread(y, target);
}

function identity(target: Int32Array): void {
  for (let i = 0; i < target.length; i++) target[i] = i;
}

/** The pooling pass: each block's first entry gets the block's mean and weight, target links its two ends. */
function pool(y: Float64Array, w: Float64Array, target: Int32Array): void {
  const n = y.length;
  let i = 0;
  while (i < n) {
    let k = target[i] + 1;
    if (k === n) break;
    if (y[i] < y[k]) {
      i = k;
      continue;
    }
    let sumWy = w[i] * y[i];
    let sumW = w[i];
    for (;;) {
      const prevY = y[k];
      sumWy += w[k] * y[k];
      sumW += w[k];
      k = target[k] + 1;
      if (k === n || prevY < y[k]) {
        y[i] = sumWy / sumW;
        w[i] = sumW;
        target[i] = k - 1;
        target[k - 1] = i;
        if (i > 0) i = target[i - 1];
        break;
      }
    }
  }
}

/** Every block's value copied from its first entry to the rest. */
function spread(y: Float64Array, target: Int32Array): void {
  const n = y.length;
  let i = 0;
  while (i < n) {
    const k = target[i] + 1;
    for (let j = i + 1; j < k; j++) y[j] = y[i];
    i = k;
  }
}

/**
 * Merges x values closer than RESOLUTION (in sorted order): each finished group's x (into sorted itself, in place),
 * mean outcome and weight; the open group's index, x, outcome sum and weight into `last` (stored at the end of every
 * block of items: nothing follows the loop).
 */
function merge(
  sorted: Float64Array,
  order: Uint32Array,
  outcomes: ArrayLike<number>,
  uy: Float64Array,
  uw: Float64Array,
  last: Float64Array,
): void {
  const n = sorted.length;
  const resolution = RESOLUTION;
  let m = 0;
  let curX = sorted[0];
  let sumY = 0;
  let sumW = 0;
  for (let start = 0; start < n; start += 1024) {
    const end = Math.min(n, start + 1024);
    for (let r = start; r < end; r++) {
      const x = sorted[r];
      if (x - curX >= resolution) {
        sorted[m] = curX;
        uy[m] = sumY / sumW;
        uw[m] = sumW;
        m++;
        curX = x;
        sumY = 0;
        sumW = 0;
      }
      sumY += outcomes[order[r]];
      sumW += 1;
    }
    last[0] = m;
    last[1] = curX;
    last[2] = sumY;
    last[3] = sumW;
  }
}

/**
 * Isotonic calibration: the non-decreasing step function of p closest to the outcomes (pool-adjacent-violators),
 * interpolated linearly between knots and clipped outside them, as scikit-learn's IsotonicRegression
 * (out_of_bounds="clip"), its values then kept inside Platt's smoothed targets [1 / (N- + 2), (N+ + 1) / (N+ + 2)] so
 * that no calibrated probability is exactly 0 or 1; warns under 1000 items [Zadrozny & Elkan 2002; Barlow et al. 1972;
 * Platt 1999].
 */
export function isotonicCalibrator(): BinaryCalibrator<IsotonicParams> {
  return {
    name: "isotonic",
    fit(data) {
      const n = checkBinary(data, "isotonic.fit");
      if (n === 0) throw new NothingLearnedError();
      const sorted = new Float64Array(n);
      const order = argsortUnit(data.p, sorted);
      const ux = sorted; // distinct values overwrite the sorted ones in place (m <= r)
      const uy = new Float64Array(n);
      const uw = new Float64Array(n);
      const last = new Float64Array(4);
      merge(sorted, order, data.y, uy, uw, last);
      const [m0, curX, sumY, sumW] = last;
      ux[m0] = curX;
      uy[m0] = sumY / sumW;
      uw[m0] = sumW;
      const m = m0 + 1;
      const y = uy.subarray(0, m);
      pav(y, uw.subarray(0, m));
      const keepX: number[] = [];
      const keepY: number[] = [];
      for (let j = 0; j < m; j++) {
        if (j === 0 || j === m - 1 || y[j] !== y[j - 1] || y[j] !== y[j + 1]) {
          keepX.push(ux[j]);
          keepY.push(y[j]);
        }
      }
      const pos = countPositives(data.y, n);
      const [lo, hi] = targetRange(pos, n);
      for (let j = 0; j < keepY.length; j++) keepY[j] = Math.min(hi, Math.max(lo, keepY[j]));
      const params: IsotonicParams = { x: keepX, y: keepY };
      const warnings = degenerateWarnings(data.p, data.y, n, pos);
      if (n < 1000) {
        warnings.push(
          `isotonic regression on ${n} items (fewer than about 1000) tends to overfit; prefer temperature or Platt`,
        );
      }
      if (warnings.length > 0) params.warnings = warnings;
      return params;
    },
    apply(params, p) {
      const xs = params.x;
      const ys = params.y;
      if (!Array.isArray(xs) || !Array.isArray(ys) || xs.length === 0 || xs.length !== ys.length) {
        throw new TypeError(
          "isotonic.apply: params.x and params.y must be equally long, non-empty number arrays",
        );
      }
      const m = xs.length;
      const out = new Float64Array(p.length);
      for (let i = 0; i < p.length; i++) {
        const v = p[i];
        if (v <= xs[0]) out[i] = ys[0];
        else if (v >= xs[m - 1]) out[i] = ys[m - 1];
        else {
          let lo = 0;
          let hi = m - 1; // xs[lo] <= v < xs[hi]
          while (hi - lo > 1) {
            const mid = (lo + hi) >>> 1;
            if (xs[mid] <= v) lo = mid;
            else hi = mid;
          }
          if (xs[lo] === v) out[i] = ys[lo];
          else out[i] = ((ys[hi] - ys[lo]) / (xs[hi] - xs[lo])) * (v - xs[lo]) + ys[lo];
        }
      }
      return out;
    },
  };
}
