/**
 * The input tokens a request is estimated to read, by the contract's rule: (words + punctuation) * 1.3, the
 * questions included. A text longer than the decider's retrieval budget (max_len) is sent cut to it, so it
 * counts as the budget; a mapping or list counts as its JSON text.
 */

import type { Item } from "@decision-workbench/datasets";
import { estimateTokens, NOT_STATED, NOT_STATED_DESCRIPTION, OrderedState } from "@decision-workbench/scorer";

/** An option as the scorer sends it: its name and description (null when it has none). */
function optionOf(o: unknown): { name: string; description: string | null } {
  if (typeof o === "string") return { name: o, description: null };
  const { name, description } = (o ?? {}) as { name?: unknown; description?: unknown };
  return {
    name: typeof name === "string" ? name : "",
    description: typeof description === "string" && description !== "" ? description : null,
  };
}

/**
 * The texts of an item's questions as the wire format sends them (the scorer's questions.ts): a choice, score or
 * yes/no-with-not-stated question with its criteria (names and descriptions, `not stated` last); a yes/no
 * question alone; a multi-label item one question per option ("<question> Does the option 'x' (d) apply?").
 */
function questionTexts(item: Item): string[] {
  const kind = (item as { kind?: string }).kind;
  const notStated = (item as { notStated?: boolean }).notStated === true;
  const listed = (kind === "score" ? item.levels : item.options) ?? [];
  const options = (kind === "yesno" && listed.length === 0 ? ["yes", "no"] : listed).map(optionOf);
  if (kind === "multi") {
    const parts = options.map(
      (o) =>
        `${item.question} Does the option '${o.name}'${o.description ? ` (${o.description})` : ""} apply?`,
    );
    if (notStated)
      parts.push(`${item.question} Is the answer not stated in the input? ${NOT_STATED_DESCRIPTION}`);
    return parts;
  }
  if (kind === "yesno" && !notStated) return [item.question];
  const criteria = options.flatMap((o) => (o.description ? [o.name, o.description] : [o.name]));
  if (notStated) criteria.push(NOT_STATED, NOT_STATED_DESCRIPTION);
  return [item.question, ...criteria];
}

/**
 * Estimated tokens of the items' questions as sent (the same for every request of a run): each instruction, option
 * name and description rounded up on its own, as the reference server counts them.
 */
export function itemTokens(items: readonly Item[]): number {
  let tokens = 0;
  for (const item of items) for (const text of questionTexts(item)) tokens += Math.ceil(estimateTokens(text));
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
