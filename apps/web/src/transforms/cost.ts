/** The cost guard's read-outs: a run's estimate before it starts, and its spend against its caps. */

import type { Progress, RunEstimate } from "@decision-workbench/api/shapes";
import { count } from "./format";

/** A cost to 4 significant digits ("0.06891"), without a currency: the server's prices name none. */
export function costText(x: number): string {
  return x === 0 ? "0" : String(Number(x.toPrecision(4)));
}

/**
 * "Estimated 34,450 input tokens and 2,200 output tokens for 200 requests; estimated cost 0.0865" (or "; no
 * prices set on this server").
 */
export function estimateText(e: RunEstimate): string {
  const tokens = `Estimated ${count(e.inputTokens)} input tokens and ${count(e.outputTokens)} output tokens for ${count(e.examples)} requests`;
  return e.cost === null
    ? `${tokens}; no prices set on this server, so no cost estimate.`
    : `${tokens}; estimated cost ${costText(e.cost)}.`;
}

/** "input tokens 10,335 of 10,335 · cost 0.02 of 0.05": a run's spend against its caps; null without caps. */
export function budgetText(p: Progress): string | null {
  const b = p.budget;
  if (!b) return null;
  const parts: string[] = [];
  if (b.maxInputTokens !== null)
    parts.push(`input tokens ${count(p.usage.input_tokens)} of ${count(b.maxInputTokens)}`);
  if (b.maxCost !== null) parts.push(`cost ${costText(p.cost)} of ${costText(b.maxCost)}`);
  return parts.length ? parts.join(" · ") : null;
}
