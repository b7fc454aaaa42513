import { NothingLearnedError } from "../errors.js";
import { checkLabelled, rowsOf } from "../input.js";
import type { MulticlassCalibrator } from "./types.js";

/** Identity params: nothing is learned beyond the item count. */
export type IdentityParams = Record<string, never>;

/** Identity: leaves the probabilities as they are; always a candidate, since fitting can make things worse [Guo et al. 2017]. */
export function identityCalibrator(): MulticlassCalibrator<IdentityParams> {
  return {
    name: "identity",
    fit(data) {
      if (checkLabelled(data, "identity.fit") === 0) throw new NothingLearnedError();
      return {};
    },
    apply(_params, m) {
      rowsOf(m, "identity.apply");
      return Float64Array.from(m.probs);
    },
  };
}
