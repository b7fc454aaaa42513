/** Faults that break a 200 reply's body: NaN/Infinity tokens, bad or missing probabilities, a missing answer. */

import type { Fault } from "./plan.js";

const BARE = "@@decision-server-bare-token@@";

type Json = Record<string, unknown>;

/** Where the first answer keeps its first probability: the `noul` field or the first `probabilities` key. */
function firstProbability(answer: Json): { holder: Json; key: string } | undefined {
  if ("noul" in answer) return { holder: answer, key: "noul" };
  const probs = answer.probabilities as Json | undefined;
  const key = probs ? Object.keys(probs)[0] : undefined;
  return probs && key !== undefined ? { holder: probs, key } : undefined;
}

/** Serialises a reply, applying a body fault (if any) to the answer of `firstId`. */
export function serializeReply(reply: Json, firstId: string, fault: Fault | undefined): string {
  if (!fault) return JSON.stringify(reply);
  const answers = reply.answers as Json;
  const answer = answers[firstId] as Json | undefined;
  const slot = answer ? firstProbability(answer) : undefined;
  switch (fault.kind) {
    case "missing-answer":
      delete answers[firstId];
      break;
    case "missing-probability":
      if (slot) delete slot.holder[slot.key];
      break;
    case "out-of-range":
      if (slot) slot.holder[slot.key] = fault.value ?? 1.7;
      break;
    case "string-probability":
      if (slot) slot.holder[slot.key] = String(slot.holder[slot.key]);
      break;
    case "boolean-probability":
      if (slot) slot.holder[slot.key] = true;
      break;
    case "nan":
    case "infinity":
      if (slot) {
        slot.holder[slot.key] = BARE;
        return JSON.stringify(reply).replace(`"${BARE}"`, fault.kind === "nan" ? "NaN" : "Infinity");
      }
      break;
    default:
      break;
  }
  return JSON.stringify(reply);
}

/** True for faults that change a 200 reply's body rather than the transport or the status. */
export function isBodyFault(fault: Fault): boolean {
  return [
    "nan",
    "infinity",
    "out-of-range",
    "missing-answer",
    "missing-probability",
    "string-probability",
    "boolean-probability",
  ].includes(fault.kind);
}
