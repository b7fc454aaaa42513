/**
 * The cost guard: a run's estimate before it starts, its caps (maxCost, maxInputTokens) and the budget that holds
 * its requests back once the next one would take it past a cap.
 *
 * Input tokens are the contract's estimate (rate-tokens.ts, the same the rate lane uses). Output tokens are
 * estimated per question as its longest possible answer (outputTokens): the size of an answer, no reasoning. Cost = (input x inputPricePerMillion + output x outputPricePerMillion) / 1e6.
 */

import type { Item } from "@decision-workbench/datasets";
import { estimateTokens, type State } from "@decision-workbench/scorer";
import { badRequest } from "../errors.js";
import type { Progress, RunEstimate } from "../shapes/runs.js";
import type { ServerRow } from "../storage/types.js";
import { itemTokens, requestTokens } from "./rate-tokens.js";

/** A server's prices per million tokens (null: not given). */
export type Prices = Pick<ServerRow, "inputPricePerMillion" | "outputPricePerMillion">;

/** A run's caps (null: none), as its progress shows them. */
export type Caps = NonNullable<Progress["budget"]>;

/** cost-guard.test.ts imports the estimate's type from here. */

/** Largest cap or price taken. */
const MAX_AMOUNT = 1e12;

function optionName(o: unknown): string {
  if (typeof o === "string") return o;
  const name = (o as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : "";
}

/** Estimated tokens of an answer text, at least 1. */
function answerTokens(text: string): number {
  return Math.max(1, Math.ceil(estimateTokens(text)));
}

/**
 * Estimated output tokens of one request: per question as sent, its longest possible answer: the longest option
 * name (`not stated` included when allowed) of a choice or score question; "yes" or "no" of a yes/no question and
 * of each option of a multi-label item. At least 1 a question.
 */
export function outputTokens(items: readonly Item[]): number {
  const yesNo = Math.max(answerTokens("yes"), answerTokens("no"));
  let tokens = 0;
  for (const item of items) {
    const kind = (item as { kind?: string }).kind;
    const notStated = (item as { notStated?: boolean }).notStated === true;
    const listed = (kind === "score" ? item.levels : item.options) ?? [];
    if (kind === "multi") {
      tokens += yesNo * (listed.length + (notStated ? 1 : 0));
    } else if (kind === "yesno" && !notStated) {
      tokens += yesNo;
    } else {
      const names = kind === "yesno" && listed.length === 0 ? ["yes", "no"] : listed.map(optionName);
      if (notStated) names.push("not stated");
      tokens += Math.max(1, ...names.map(answerTokens));
    }
  }
  return tokens;
}

/** Cost of tokens at the prices; null unless both prices are given. */
export function priceCost(input: number, output: number, prices: Prices): number | null {
  const { inputPricePerMillion: pin, outputPricePerMillion: pout } = prices;
  if (pin === null || pout === null) return null;
  return (input * pin + output * pout) / 1e6;
}

/** The estimate of a run over these states. */
export function estimateRun(
  items: readonly Item[],
  states: Iterable<State>,
  maxLen: number,
  prices: Prices,
): RunEstimate {
  const questions = itemTokens(items);
  const perRequestOut = outputTokens(items);
  let examples = 0;
  let input = 0;
  for (const state of states) {
    examples++;
    input += requestTokens(state, questions, maxLen);
  }
  const output = examples * perRequestOut;
  return {
    examples,
    decisions: examples * items.length,
    inputTokens: input,
    outputTokens: output,
    inputPricePerMillion: prices.inputPricePerMillion,
    outputPricePerMillion: prices.outputPricePerMillion,
    cost: priceCost(input, output, prices),
  };
}

/**
 * Refuses a cap or price that is not a number above 0 (at most MAX_AMOUNT), or null, with a 400 naming the field
 * and what is right.
 */
export function checkAmounts(input: Record<string, unknown>, fields: readonly [string, string][]): void {
  for (const [field, what] of fields) {
    const v = input[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > MAX_AMOUNT) {
      throw badRequest(
        `body.${field} must be ${what} (a number above 0, at most ${MAX_AMOUNT}), or null for none; got ${JSON.stringify(v)}`,
      );
    }
  }
}

/** The cap fields of a run's input, checked. */
export const CAP_FIELDS: readonly [string, string][] = [
  ["maxCost", "the most the run may cost, in the prices' or the replies' currency, such as 2.5"],
  ["maxInputTokens", "the most input tokens the run may use, such as 500000"],
];

/** The price fields of a server's input, checked. */
export const PRICE_FIELDS: readonly [string, string][] = [
  ["inputPricePerMillion", "the price of a million input tokens, such as 0.15"],
  ["outputPricePerMillion", "the price of a million output tokens, such as 0.6"],
];

/**
 * The budget of a run at work: what its stored answers spent, plus the estimates of the requests in flight. A
 * request may go only while spent + in flight + its own estimate stays within every cap.
 */
export class Budget {
  private inflightTokens = 0;
  private inflightCost = 0;

  constructor(
    private readonly caps: Caps,
    /** Spent so far (the run's stored counters, updated as answers are stored). */
    private readonly spent: () => { inputTokens: number; cost: number },
  ) {}

  /** True when the run has a cap. */
  get capped(): boolean {
    return this.caps.maxCost !== null || this.caps.maxInputTokens !== null;
  }

  /** Takes a request's estimate when it fits under the caps; false (nothing taken) when it would not. */
  take(tokens: number, cost: number): boolean {
    const { maxCost, maxInputTokens } = this.caps;
    const s = this.spent();
    if (maxInputTokens !== null && s.inputTokens + this.inflightTokens + tokens > maxInputTokens)
      return false;
    if (maxCost !== null && s.cost + this.inflightCost + cost > maxCost) return false;
    this.inflightTokens += tokens;
    this.inflightCost += cost;
    return true;
  }

  /** Gives back a request's estimate once its answer is counted (or it was not sent). */
  give(tokens: number, cost: number): void {
    this.inflightTokens -= tokens;
    this.inflightCost -= cost;
  }
}

/** True when the stored spend has reached a cap (a resume needs a higher one). */
export function capReached(caps: Caps, spent: { inputTokens: number; cost: number }): string | null {
  if (caps.maxInputTokens !== null && spent.inputTokens >= caps.maxInputTokens) {
    return `its input tokens (${spent.inputTokens}) have reached maxInputTokens ${caps.maxInputTokens}`;
  }
  if (caps.maxCost !== null && spent.cost >= caps.maxCost) {
    return `its cost (${spent.cost}) has reached maxCost ${caps.maxCost}`;
  }
  return null;
}
