import { NOTHING_LEARNED, ValueError } from "./errors.js";
import type { Decision, ItemScore } from "./types.js";

/**
 * For learning calls (fit, teach, adapt, correction memory): returns the logits of an output that answered, and
 * raises for the placeholder zeros of a request that did not.
 */
export function usableLogits(output: ItemScore | Decision): number[] {
  const failed =
    "escalate" in output ? output.escalate !== undefined : (output as Decision).status === "escalated";
  if (failed) throw new ValueError(NOTHING_LEARNED);
  return output.logits;
}
