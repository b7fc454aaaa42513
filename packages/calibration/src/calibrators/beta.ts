import { NothingLearnedError } from "../errors.js";
import { checkBinary } from "../input.js";
import { fitLogistic } from "./logistic.js";
import { CLIP, checkParam, clippedSigmoid } from "./logit.js";
import { degenerateWarnings, plattTargets } from "./targets.js";
import type { BinaryCalibrator, FitWarnings } from "./types.js";

/** Beta calibration params: logit(q) = a ln p - b ln(1 - p) + c, with a, b >= 0. */
export interface BetaParams extends FitWarnings {
  a: number;
  b: number;
  c: number;
}

function features(p: ArrayLike<number>, i: number): [number, number] {
  const q = Math.min(1 - CLIP, Math.max(CLIP, p[i]));
  return [Math.log(q), -Math.log(1 - q)];
}

/**
 * Each item's features into lp and l1p. A loop of its own with nothing after it: V8 compiles a long loop while it
 * runs, on the first call, and code after it that needs type feedback (never run then) made every later call bail out
 * of the compiled loop.
 */
function allFeatures(p: ArrayLike<number>, lp: Float64Array, l1p: Float64Array): void {
  for (let i = 0; i < lp.length; i++) [lp[i], l1p[i]] = features(p, i);
}

/**
 * Beta calibration: logit(q) = a ln p - b ln(1 - p) + c by logistic regression on (ln p, -ln(1 - p)) with Platt's
 * smoothed targets ((N+ + 1) / (N+ + 2), 1 / (N- + 2)), so the fit stays finite on separable data; a negative a or b
 * is refitted at 0, as the authors' betacal does [Kull, Silva Filho & Flach 2017; Platt 1999].
 */
export function betaCalibration(): BinaryCalibrator<BetaParams> {
  return {
    name: "beta",
    fit(data) {
      const n = checkBinary(data, "beta.fit");
      if (n === 0) throw new NothingLearnedError();
      const lp = new Float64Array(n);
      const l1p = new Float64Array(n);
      allFeatures(data.p, lp, l1p);
      const { t, pos } = plattTargets(data.y, n);
      let fit = fitLogistic([lp, l1p], t, true, [1, 1, 0]); // started at the identity map
      let params: BetaParams;
      if (fit.coef[0] < 0) {
        fit = fitLogistic([l1p], t, true, [1, 0]);
        params = { a: 0, b: fit.coef[0], c: fit.intercept };
      } else if (fit.coef[1] < 0) {
        fit = fitLogistic([lp], t, true, [1, 0]);
        params = { a: fit.coef[0], b: 0, c: fit.intercept };
      } else {
        params = { a: fit.coef[0], b: fit.coef[1], c: fit.intercept };
      }
      const warnings = degenerateWarnings(data.p, data.y, n, pos);
      if (!fit.converged) warnings.push("the fit did not converge within 200 Newton steps");
      if (warnings.length > 0) params.warnings = warnings;
      return params;
    },
    apply(params, p) {
      const a = checkParam(params.a, "a", "beta.apply");
      const b = checkParam(params.b, "b", "beta.apply");
      const c = checkParam(params.c, "c", "beta.apply");
      const out = new Float64Array(p.length);
      for (let i = 0; i < p.length; i++) {
        const [lp, l1p] = features(p, i);
        out[i] = clippedSigmoid(a * lp + b * l1p + c);
      }
      return out;
    },
  };
}
