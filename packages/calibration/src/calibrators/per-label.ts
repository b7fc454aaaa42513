import { NothingLearnedError } from "../errors.js";
import { checkMultiLabel, rowsOf } from "../input.js";
import { classViewUnchecked } from "../views.js";
import type { BinaryCalibrator, MultiLabelCalibrator } from "./types.js";

/** Per-label params: one set of binary params per label, in label order. */
export interface PerLabelParams<P> {
  labels: P[];
}

/** A binary calibrator fitted and applied to every label of a multi-label question on its own [Tsoumakas & Katakis 2007]. */
export function perLabel<P>(binary: BinaryCalibrator<P>): MultiLabelCalibrator<PerLabelParams<P>> {
  return {
    name: binary.name,
    fit(data) {
      const n = checkMultiLabel(data, `${binary.name}.fit`);
      if (n === 0) throw new NothingLearnedError();
      const labels: P[] = [];
      for (let j = 0; j < data.k; j++) labels.push(binary.fit(classViewUnchecked(data, n, j, true)));
      return { labels };
    },
    apply(params, m) {
      const n = rowsOf(m, `${binary.name}.apply`);
      if (!Array.isArray(params.labels) || params.labels.length !== m.k) {
        throw new RangeError(
          `${binary.name}.apply: params hold ${params.labels?.length} labels, the data have ${m.k}`,
        );
      }
      const out = new Float64Array(n * m.k);
      for (let j = 0; j < m.k; j++) {
        const col = new Float64Array(n);
        for (let i = 0; i < n; i++) col[i] = m.probs[i * m.k + j];
        const q = binary.apply(params.labels[j], col);
        for (let i = 0; i < n; i++) out[i * m.k + j] = q[i];
      }
      return out;
    },
  };
}
