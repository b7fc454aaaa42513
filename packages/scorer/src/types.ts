import type { OrderedState } from "./orderedState.js";

/** An option of an item: a bare name, or a name with the description a service reads. */
export type Option = string | { name: string; description?: string | null };

/** The question kinds the scorer supports. Spans and evidence quotes have no representation. */
export type ItemKind = "choice" | "yesno" | "score" | "multi";

/** One question about the state, in the scorer's vocabulary. */
export interface Item {
  name: string;
  kind: ItemKind;
  question: string;
  /** choice and multi: the options; yesno: optional descriptions of `yes` and `no`. */
  options?: Option[];
  /** score: the ordered levels, lowest first. */
  levels?: Option[];
  /** Adds the `not stated` option (an Unknown when it is the most probable). */
  notStated?: boolean;
  /** Never allowed: asking for evidence quotes is a ValueError. */
  evidence?: boolean;
}

/**
 * The input the questions are about: text, a mapping (key order matters) or a list. A plain object's
 * integer-like keys come first in JavaScript; an OrderedState keeps the source's key order on the wire.
 */
export type State = string | Record<string, unknown> | unknown[] | OrderedState;

/** A question object of the wire format. */
export interface Question {
  type: "choice" | "noul";
  instructions: string;
  criteria?: Record<string, string | null>;
}

/** What the opener is given: one HTTP request. `timeout` is in seconds. */
export interface OpenerRequest {
  url: string;
  method: "POST" | "GET";
  headers: Record<string, string>;
  body?: string;
  timeout: number;
  /** The call's AbortSignal, when it has one: an opener should stop the request when it aborts. */
  signal?: AbortSignal;
}

/** What the opener resolves to. A network failure rejects with an error whose `code` is a NetworkCode. */
export interface OpenerResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The transport: replaceable for tests and proxies. */
export type Opener = (request: OpenerRequest) => Promise<OpenerResponse>;

/** Why a request failed without an HTTP status. */
export type NetworkCode = "timeout" | "reset" | "incomplete read" | "refused" | "network";

/** Token counts a service reports, under the names of release 0.8.0. */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  reasoning_tokens?: number;
}

/** Reasoning kept for the audit: text cut to REASONING_CHARS characters. */
export interface Reasoning {
  text: string;
  tokens: number;
  thought: boolean;
  /** Whether the model closed its reasoning (false: cut off by its budget), when the service says. */
  closed?: boolean;
  /** The length of the text the service sent, in characters: more than `text.length` when it was cut. */
  length?: number;
}

/** The decision record the contract keeps under `extra.decision`. */
export interface DecisionRecord {
  endpoint: string;
  model: string;
  served_by?: string;
  ms: number;
  usage?: Usage;
  cost?: number;
  latency_ms?: number;
  questions: number;
  /** The reply's request id (`x-request-id`, a vendor's `x-...-request-id` or `cf-ray`), when it sent one. */
  request_id?: string;
  /** One Reasoning for a single question; per option name (and `not stated`) for a multi-label item. */
  reasoning?: Reasoning | Record<string, Reasoning>;
}

/** The scorer's output for one item of a batch call. */
export interface ItemScore {
  logits: number[];
  unknown?: number;
  /** Present when the decision escalates: the reason. The logits are then placeholder zeros. */
  escalate?: string;
  record: DecisionRecord;
}

/** Scorer output read from answers: logits and, when the item allows it, the `not stated` score. */
export interface ReadResult {
  logits: number[];
  unknown?: number;
}

/** Constructor options of DecisionScorer; times are in seconds. */
export interface ScorerOptions {
  timeout?: number;
  opener?: Opener;
  extraBody?: Record<string, unknown>;
  retries?: number;
  backoff?: number;
  sleep?: (seconds: number) => Promise<void>;
  /** Longest wait, in seconds, a 429's or 503's Retry-After / retry-after-ms is honoured for (default 60). */
  maxRetryWait?: number;
  /** Full jitter: each backoff wait is drawn uniformly from [0, backoff * 2^k] (default false). */
  jitter?: boolean;
}

/** Options of one call: the answer cache, and an AbortSignal that cancels the call. */
export interface CallOptions {
  /** false: ask the service again instead of answering from the cache. */
  cache?: boolean;
  /** Aborting it rejects the call with an AbortError (also while it waits to retry); nothing is cached. */
  signal?: AbortSignal;
}

/** Constructor options of the decider: the scorer's, plus replay mode and the retrieval budget. */
export interface DeciderOptions extends ScorerOptions {
  deterministic?: boolean;
  maxLen?: number | null;
}

interface DecisionBase {
  extra: { decision: DecisionRecord };
}

/** A decision the service answered. */
export interface AnsweredDecision extends DecisionBase {
  status: "answered";
  /** An option name, or the chosen options of a multi-label item. */
  answer: string | string[];
  confidence: number;
  probabilities: Record<string, number>;
  logits: number[];
  unknown?: number;
}

/** A decision whose `not stated` option won: the decider abstains. */
export interface UnknownDecision extends DecisionBase {
  status: "unknown";
  reason: "not stated";
  confidence: number;
  probabilities: Record<string, number>;
  logits: number[];
  unknown: number;
}

/** A decision passed on: never guessed. */
export interface EscalatedDecision extends DecisionBase {
  status: "escalated";
  reason: string;
  logits: number[];
}

/** What the decider resolves to. */
export type Decision = AnsweredDecision | UnknownDecision | EscalatedDecision;

/** One difference found by replay. */
export interface ReplayDifference {
  field: "status" | "answer" | "probabilities" | "served_by" | "endpoint" | "model" | "confidence";
  recorded: unknown;
  now: unknown;
  detail?: string;
}

/** What replay reports instead of throwing. */
export interface ReplayReport {
  ok: boolean;
  /** True when the service was called again (deterministic mode). */
  called: boolean;
  differences: ReplayDifference[];
}
