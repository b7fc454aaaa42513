/**
 * The input tokens a request is estimated to read, by the contract's rule: (words + punctuation) * 1.3, the
 * questions included. A text longer than the decider's retrieval budget (max_len) is sent cut to it, so it
 * counts as the budget; a mapping or list counts as its JSON text.
 */

import type { Item } from "@decision-workbench/datasets";
import { estimateTokens, OrderedState } from "@decision-workbench/scorer";

function optionText(o: unknown): string {
  if (typeof o === "string") return o;
  if (o && typeof o === "object") {
    const { name, description } = o as { name?: unknown; description?: unknown };
    return `${typeof name === "string" ? name : ""} ${typeof description === "string" ? description : ""}`;
  }
  return "";
}

/** Estimated tokens of the items' questions and options (the same for every request of a run). */
export function itemTokens(items: readonly Item[]): number {
  let tokens = 0;
  for (const item of items) {
    const parts = [
      item.question,
      ...(item.options ?? []).map(optionText),
      ...(item.levels ?? []).map(optionText),
    ];
    tokens += estimateTokens(parts.join("\n"));
  }
  return tokens;
}

/** Estimated input tokens of one request: the state as sent plus `questions` (from itemTokens). */
export function requestTokens(state: unknown, questions: number, maxLen: number): number {
  if (typeof state === "string") {
    const budget = Math.max(maxLen - questions, maxLen / 4);
    // a text has no more units than characters: a short one needs no counting
    const tokens =
      state.length * 1.3 <= budget ? estimateTokens(state) : Math.min(estimateTokens(state), budget);
    return Math.ceil(tokens + questions);
  }
  const text = state instanceof OrderedState ? state.json : (JSON.stringify(state) ?? "");
  return Math.ceil(estimateTokens(text) + questions);
}
