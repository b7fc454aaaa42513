/** Answers a validated request with a model: answers, usage, reasoning (the reply minus latency). */

import { StateView } from "../models/state-view.js";
import type { DecisionModel } from "../models/types.js";
import type { DecisionRequest, Question } from "../request/types.js";
import { countTokens, estimateTokens } from "../text/tokenize.js";
import { type Answer, buildAnswer, chosenText, setKey } from "./answers.js";

/** Longest reasoning text in characters. */
const REASONING_CHARS = 600;

function questionTokens(q: Question): number {
  let n = countTokens(q.instructions);
  for (const o of q.options) {
    n += countTokens(o.name);
    if (o.description) n += countTokens(o.description);
  }
  if (q.yes) n += countTokens(q.yes);
  if (q.no) n += countTokens(q.no);
  return n;
}

/** The reply body fields computed by a model. */
export interface Decided {
  answers: Record<string, Answer>;
  usage: { input_tokens: number; output_tokens: number; reasoning_tokens: number };
  reasoning?: Record<string, { thought: boolean; closed: boolean; tokens: number; text: string }>;
  /**
   * The model the reply names: the one asked, or `<model>+lexical` when any question fell back to the lexical
   * model (no checkpoint matched it): the version asked and the model that answered are both named.
   */
  model: string;
}

/** Runs every question of a request through a model (the state is tokenised once). */
export function decide(model: DecisionModel, request: DecisionRequest): Decided {
  const view = new StateView(request.state);
  const explain = request.options.returnReasoning;
  const answers: Record<string, Answer> = {};
  const reasoning: NonNullable<Decided["reasoning"]> = {};
  let input = estimateTokens(view.scan);
  let output = 0;
  let fellBack = 0;
  let fallback = "";
  for (const q of request.questions) {
    const p = model.predict(view, q, explain);
    if (p.fallback) {
      fellBack++;
      fallback = p.fallback;
    }
    setKey(answers, q.id, buildAnswer(q, p.probs));
    input += questionTokens(q);
    output += Math.max(1, countTokens(chosenText(q, p.probs)));
    if (explain) {
      const text = (p.reasoning ?? "").slice(0, REASONING_CHARS);
      setKey(reasoning, q.id, { thought: false, closed: true, tokens: 0, text });
    }
  }
  const usage = { input_tokens: input, output_tokens: output, reasoning_tokens: 0 };
  const named = fellBack === 0 ? model.name : `${model.name}+${fallback}`;
  return explain ? { answers, usage, reasoning, model: named } : { answers, usage, model: named };
}
