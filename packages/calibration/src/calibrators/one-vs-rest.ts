import { NothingLearnedError } from "../errors.js";
import { checkLabelled, rowsOf } from "../input.js";
import type { ProbMatrix } from "../types.js";
import { classViewUnchecked } from "../views.js";
import type { BinaryCalibrator, MulticlassCalibrator } from "./types.js";

/** One-vs-rest params: the positive option's params for two options, else one per option. */
export type OneVsRestParams<P> = { positive: P } | { classes: P[] };

function column(m: ProbMatrix, n: number, j: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = m.probs[i * m.k + j];
  return out;
}

/**
 * A binary calibrator applied to a multiclass question: with two options it calibrates option 1 and sets option 0
 * to the rest; with more, each option one-vs-rest and the rows renormalised (uniform where all are 0)
 * [Zadrozny & Elkan 2002; scikit-learn's CalibratedClassifierCV].
 */
export function oneVsRest<P>(binary: BinaryCalibrator<P>): MulticlassCalibrator<OneVsRestParams<P>> {
  return {
    name: binary.name,
    fit(data) {
      const n = checkLabelled(data, `${binary.name}.fit`);
      if (n === 0) throw new NothingLearnedError();
      if (data.k === 2) return { positive: binary.fit(classViewUnchecked(data, n, 1, false)) };
      const classes: P[] = [];
      for (let j = 0; j < data.k; j++) classes.push(binary.fit(classViewUnchecked(data, n, j, false)));
      return { classes };
    },
    apply(params, m) {
      const n = rowsOf(m, `${binary.name}.apply`);
      const k = m.k;
      const out = new Float64Array(n * k);
      if ("positive" in params) {
        if (k !== 2)
          throw new RangeError(`${binary.name}.apply: params are for 2 options, the data have ${k}`);
        const q = binary.apply(params.positive, column(m, n, 1));
        for (let i = 0; i < n; i++) {
          out[2 * i + 1] = q[i];
          out[2 * i] = 1 - q[i];
        }
        return out;
      }
      if (!Array.isArray(params.classes) || params.classes.length !== k) {
        throw new RangeError(
          `${binary.name}.apply: params hold ${params.classes?.length} options, the data have ${k}`,
        );
      }
      for (let j = 0; j < k; j++) {
        const q = binary.apply(params.classes[j], column(m, n, j));
        for (let i = 0; i < n; i++) out[i * k + j] = q[i];
      }
      for (let i = 0, base = 0; i < n; i++, base += k) {
        let s = 0;
        for (let j = 0; j < k; j++) s += out[base + j];
        for (let j = 0; j < k; j++) out[base + j] = s > 0 ? out[base + j] / s : 1 / k;
      }
      return out;
    },
  };
}
