import { REASONING_CHARS } from "./constants.js";
import type { Reasoning, Usage } from "./types.js";

/** Reads usage under the names of release 0.8.0, accepting the chat-style names too. */
export function readUsage(reply: Record<string, unknown>): Usage | undefined {
  const raw = reply.usage;
  if (typeof raw !== "object" || raw === null) return undefined;
  const u = raw as Record<string, unknown>;
  const details = u.completion_tokens_details as Record<string, unknown> | undefined;
  const input = count(u.input_tokens) ?? count(u.prompt_tokens);
  const output = count(u.output_tokens) ?? count(u.completion_tokens);
  const reasoning = count(u.reasoning_tokens) ?? count(details?.reasoning_tokens);
  if (input === undefined && output === undefined && reasoning === undefined) return undefined;
  const usage: Usage = {};
  if (input !== undefined) usage.input_tokens = input;
  if (output !== undefined) usage.output_tokens = output;
  if (reasoning !== undefined) usage.reasoning_tokens = reasoning;
  return usage;
}

/** The price in USD: `usage.cost` (gateways) or a top-level `cost`. */
export function readCost(reply: Record<string, unknown>): number | undefined {
  const usage = reply.usage as Record<string, unknown> | undefined;
  return finite(usage?.cost) ?? finite(reply.cost);
}

/** The service's own latency for the whole request. */
export function readLatency(reply: Record<string, unknown>): number | undefined {
  return finite(reply.latency_ms);
}

/** The model that answered, when it differs from the one requested. */
export function readServedBy(reply: Record<string, unknown>, model: string): string | undefined {
  return typeof reply.model === "string" && reply.model !== "" && reply.model !== model
    ? reply.model
    : undefined;
}

/**
 * One question's reasoning, its text cut to REASONING_CHARS characters (whole code points), with `closed` when
 * the service says it and the length of the text it sent (so an audit sees a cut).
 */
export function readReasoning(raw: unknown): Reasoning | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  const full = typeof r.text === "string" ? r.text : "";
  const reasoning: Reasoning = {
    text: cutText(full, REASONING_CHARS),
    tokens: count(r.tokens) ?? 0,
    thought: r.thought === true,
  };
  if (typeof r.closed === "boolean") reasoning.closed = r.closed;
  reasoning.length = full.length;
  return reasoning;
}

/** Cuts text to at most `limit` characters without splitting a surrogate pair. */
function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
