import { NothingLearnedError } from "../errors.js";
import { checkBinary } from "../input.js";
import { fitLogistic } from "./logistic.js";
import { checkParam, clippedSigmoid, logit } from "./logit.js";
import { degenerateWarnings, plattTargets } from "./targets.js";
import type { BinaryCalibrator, FitWarnings } from "./types.js";

/** Platt scaling params: q = sigmoid(a * logit(p) + b). */
export interface PlattParams extends FitWarnings {
  a: number;
  b: number;
}

/**
 * Each item's clipped logit into x. A loop of its own with nothing after it: V8 compiles a long loop while it runs, on
 * the first call, and code after it that needs type feedback (never run then) made every later call bail out of the
 * compiled loop.
 */
function logits(p: ArrayLike<number>, x: Float64Array): void {
  for (let i = 0; i < x.length; i++) x[i] = logit(p[i]);
}

/**
 * Platt scaling: q = sigmoid(a * logit(p) + b) (logit of p clipped to [1e-6, 1 - 1e-6]), a and b by maximum
 * likelihood on Platt's smoothed targets, (N+ + 1) / (N+ + 2) for positives and 1 / (N- + 2) for negatives, which
 * keeps them finite on separable or one-class data; exactly scikit-learn's `_sigmoid_calibration` [Platt 1999].
 */
export function plattScaling(): BinaryCalibrator<PlattParams> {
  return {
    name: "platt",
    fit(data) {
      const n = checkBinary(data, "platt.fit");
      if (n === 0) throw new NothingLearnedError();
      const x = new Float64Array(n);
      logits(data.p, x);
      const { t, pos } = plattTargets(data.y, n);
      const fit = fitLogistic([x], t, true, [1, 0]); // started at the identity map
      const params: PlattParams = { a: fit.coef[0], b: fit.intercept };
      const warnings = degenerateWarnings(data.p, data.y, n, pos);
      if (!fit.converged) warnings.push("the fit did not converge within 200 Newton steps");
      if (warnings.length > 0) params.warnings = warnings;
      return params;
    },
    apply(params, p) {
      const a = checkParam(params.a, "a", "platt.apply");
      const b = checkParam(params.b, "b", "platt.apply");
      const out = new Float64Array(p.length);
      for (let i = 0; i < p.length; i++) out[i] = clippedSigmoid(a * logit(p[i]) + b);
      return out;
    },
  };
}
