import { NothingLearnedError } from "../errors.js";
import { checkBinary } from "../input.js";
import { fitLogistic } from "./logistic.js";
import { checkParam, logit, sigmoid } from "./logit.js";
import type { BinaryCalibrator, FitWarnings } from "./types.js";

/** Platt scaling params: q = sigmoid(a * logit(p) + b). */
export interface PlattParams extends FitWarnings {
  a: number;
  b: number;
}

/**
 * Each item's clipped logit into x; returns the number of positive outcomes. A loop of its own with nothing after it
 * but its result: V8 compiles a long loop while it runs, on the first call, and code after it that needs type
 * feedback (never run then) made every later call bail out of the compiled loop.
 */
function logits(p: ArrayLike<number>, y: ArrayLike<number>, x: Float64Array): number {
  let pos = 0;
  for (let i = 0; i < x.length; i++) {
    x[i] = logit(p[i]);
    pos += y[i];
  }
  return pos;
}

/**
 * Platt scaling: q = sigmoid(a * logit(p) + b), a and b by unpenalised maximum likelihood (logit of p clipped to
 * [1e-6, 1 - 1e-6]) [Platt 1999].
 */
export function plattScaling(): BinaryCalibrator<PlattParams> {
  return {
    name: "platt",
    fit(data) {
      const n = checkBinary(data, "platt.fit");
      if (n === 0) throw new NothingLearnedError();
      const x = new Float64Array(n);
      const pos = logits(data.p, data.y, x);
      const fit = fitLogistic([x], data.y, true, [1, 0]); // started at the identity map
      const params: PlattParams = { a: fit.coef[0], b: fit.intercept };
      if (pos === 0 || pos === n) {
        params.warnings = [
          `every outcome is ${pos === 0 ? 0 : 1}: the fit is degenerate and pushes everything to it`,
        ];
      } else if (!fit.converged) {
        params.warnings = ["the outcomes are separable by the probability: the fit did not converge"];
      }
      return params;
    },
    apply(params, p) {
      const a = checkParam(params.a, "a", "platt.apply");
      const b = checkParam(params.b, "b", "platt.apply");
      const out = new Float64Array(p.length);
      for (let i = 0; i < p.length; i++) out[i] = sigmoid(a * logit(p[i]) + b);
      return out;
    },
  };
}
