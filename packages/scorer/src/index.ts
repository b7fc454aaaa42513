/**
 * @decision-workbench/scorer: the client adapter of the decision-service contract (release 0.8.0).
 * Items -> questions -> POST {base_url}/v1/decision -> logits, decisions, decision records.
 */

export { AbortError } from "./abort.js";
export {
  DEFAULT_MAX_LEN,
  MULTI_THRESHOLD,
  NOT_STATED,
  NOT_STATED_DESCRIPTION,
  REASONING_CHARS,
} from "./constants.js";
export { DecisionDecider, decisionDecider } from "./decider.js";
export { EscalationError, NOTHING_LEARNED, RemoteClientError, ServiceError, ValueError } from "./errors.js";
export { errorText } from "./errorText.js";
export { usableLogits } from "./learning.js";
export { NetworkError, type SocketOptions, undiciOpener, undiciOpenerWith } from "./opener.js";
export { OrderedState, orderedState } from "./orderedState.js";
export { redact } from "./redact.js";
export { estimateTokens } from "./retrieval.js";
export { DecisionScorer } from "./scorer.js";
export type * from "./types.js";
