import { MULTI_THRESHOLD, NOT_STATED } from "./constants.js";
import type { NormalItem } from "./items.js";
import { outcomeNames } from "./items.js";
import { sigmoid, softmax } from "./logits.js";
import type { Decision, ItemScore } from "./types.js";

/** Turns one item's scorer output into a decision: answered, unknown ("not stated") or escalated. */
export function toDecision(item: NormalItem, scored: ItemScore): Decision {
  const extra = { decision: scored.record };
  if (scored.escalate !== undefined) {
    return { status: "escalated", reason: scored.escalate, logits: scored.logits, extra };
  }
  const { logits, unknown } = scored;
  if (item.kind === "multi") {
    const probabilities: Record<string, number> = {};
    const ps = logits.map(sigmoid);
    item.options.forEach((opt, j) => {
      probabilities[opt.name] = ps[j];
    });
    if (unknown !== undefined) {
      const ns = sigmoid(unknown);
      probabilities[NOT_STATED] = ns;
      if (ns >= MULTI_THRESHOLD) {
        return {
          status: "unknown",
          reason: "not stated",
          confidence: ns,
          probabilities,
          logits,
          unknown,
          extra,
        };
      }
    }
    const answer = item.options.filter((_, j) => ps[j] >= MULTI_THRESHOLD).map((o) => o.name);
    const confidence = Math.min(...ps.map((p) => Math.max(p, 1 - p)));
    return withUnknown({ status: "answered", answer, confidence, probabilities, logits, extra }, unknown);
  }
  const full = unknown === undefined ? logits : [...logits, unknown];
  const ps = softmax(full);
  const names = outcomeNames(item);
  const probabilities: Record<string, number> = {};
  let best = 0;
  names.forEach((name, k) => {
    probabilities[name] = ps[k];
    if (ps[k] > ps[best]) best = k;
  });
  if (unknown !== undefined && best === names.length - 1) {
    return {
      status: "unknown",
      reason: "not stated",
      confidence: ps[best],
      probabilities,
      logits,
      unknown,
      extra,
    };
  }
  return withUnknown(
    { status: "answered", answer: names[best], confidence: ps[best], probabilities, logits, extra },
    unknown,
  );
}

function withUnknown(decision: Decision, unknown: number | undefined): Decision {
  if (unknown !== undefined && decision.status === "answered") decision.unknown = unknown;
  return decision;
}
