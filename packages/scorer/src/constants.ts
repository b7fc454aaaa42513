/** Characters of reasoning text kept for the audit. */
export const REASONING_CHARS = 1000;
/** A multi-label option is chosen when its probability reaches this. */
export const MULTI_THRESHOLD = 0.5;
/** Probabilities are clipped here before taking logs. */
export const CLIP = 1e-6;
/** The reserved option name. */
export const NOT_STATED = "not stated";
/** The description of `not stated`: it begins with the words that the input does not state it. */
export const NOT_STATED_DESCRIPTION =
  "The input does not state it: the facts this question needs are missing, and nothing given settles it.";
/** Default retrieval budget, in estimated tokens. */
export const DEFAULT_MAX_LEN = 512;
/** Defaults of the contract (seconds). */
export const DEFAULTS = { timeout: 30.0, retries: 2, backoff: 1.0 } as const;
/** Longest Retry-After wait honoured by default (seconds). */
export const MAX_RETRY_WAIT = 60;
/** Answered replies kept in memory, keyed by request body. */
export const CACHE_SIZE = 2048;
