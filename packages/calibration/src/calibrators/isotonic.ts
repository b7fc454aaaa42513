import { NothingLearnedError } from "../errors.js";
import { checkBinary } from "../input.js";
import { argsortUnit } from "../sort.js";
import type { BinaryCalibrator, FitWarnings } from "./types.js";

/** Isotonic params: the fitted step function's knots, linearly interpolated between, clipped outside. */
export interface IsotonicParams extends FitWarnings {
  x: number[];
  y: number[];
}

/** scikit-learn merges x values closer than numpy.finfo(float64).resolution into one. */
const RESOLUTION = 1e-15;

/** Pool-adjacent-violators in place on y with weights w (non-decreasing fit), scikit-learn's single-pass variant. */
function pav(y: Float64Array, w: Float64Array): void {
  const n = y.length;
  const target = new Int32Array(n);
  for (let i = 0; i < n; i++) target[i] = i;
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
  i = 0;
  while (i < n) {
    const k = target[i] + 1;
    for (let j = i + 1; j < k; j++) y[j] = y[i];
    i = k;
  }
}

/**
 * Isotonic calibration: the non-decreasing step function of p closest to the outcomes (pool-adjacent-violators),
 * interpolated linearly between knots and clipped outside them, as scikit-learn's IsotonicRegression
 * (out_of_bounds="clip"); warns under 1000 items [Zadrozny & Elkan 2002; Barlow et al. 1972].
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
      let m = 0;
      let curX = sorted[0];
      let sumY = 0;
      let sumW = 0;
      for (let r = 0; r < n; r++) {
        const x = sorted[r];
        if (x - curX >= RESOLUTION) {
          ux[m] = curX;
          uy[m] = sumY / sumW;
          uw[m] = sumW;
          m++;
          curX = x;
          sumY = 0;
          sumW = 0;
        }
        sumY += data.y[order[r]];
        sumW += 1;
      }
      ux[m] = curX;
      uy[m] = sumY / sumW;
      uw[m] = sumW;
      m++;
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
      const params: IsotonicParams = { x: keepX, y: keepY };
      if (n < 1000) {
        params.warnings = [
          `isotonic regression on ${n} items (fewer than about 1000) tends to overfit; prefer temperature or Platt`,
        ];
      }
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
