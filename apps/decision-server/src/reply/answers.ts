/** Builds the wire-format answer of each question type from a model's probabilities. */

import type { Question } from "../request/types.js";

/** Decimal places of every probability and confidence in a reply. */
const DECIMALS = 4;
const SCALE = 10 ** DECIMALS;

/** Rounds a probability to the reply's precision. */
function round(p: number): number {
  return Math.round(p * SCALE) / SCALE;
}

/** Sets a key of a plain object, "__proto__" included (as an ordinary own property). */
export function setKey<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__")
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function argmax(probs: number[]): number {
  let best = 0;
  for (let i = 1; i < probs.length; i++) if (probs[i] > probs[best]) best = i;
  return best;
}

/** A wire answer. */
export type Answer = Record<string, unknown>;

/** The answer to one question: choice, noul (P(yes), no confidence) or score. */
export function buildAnswer(q: Question, probs: number[]): Answer {
  if (q.type === "noul") return { type: "noul", noul: round(probs[0]) };
  const best = argmax(probs);
  const probabilities: Record<string, number> = {};
  if (q.type === "score") return scoreAnswer(q, probs, best);
  q.options.forEach((o, i) => {
    setKey(probabilities, o.name, round(probs[i]));
  });
  return { type: "choice", choice: q.options[best].name, confidence: round(probs[best]), probabilities };
}

/**
 * A score answer as the open-weight servers send it: `score` the expected level sum(i * p_i) over levels
 * 0..k-1 (not the most probable one), `legend` the object {"0": level 0's text, ...}, `probabilities` keyed
 * "0".."k-1", and `confidence` 1 - sum(p_i * |i - mode|) / (k - 1), where mode is the most probable level
 * (1 when k = 1): 1 when all the mass is on one level, lower the farther it spreads from it.
 */
export function scoreAnswer(q: Question, probs: number[], mode: number): Answer {
  const k = probs.length;
  const probabilities: Record<string, number> = {};
  const legend: Record<string, string> = {};
  let expected = 0;
  let spread = 0;
  for (let i = 0; i < k; i++) {
    probabilities[i] = round(probs[i]);
    legend[i] = q.options[i].name;
    expected += i * probs[i];
    spread += probs[i] * Math.abs(i - mode);
  }
  const confidence = k === 1 ? 1 : 1 - spread / (k - 1);
  return { type: "score", score: round(expected), legend, probabilities, confidence: round(confidence) };
}

/** The option name an answer chose ("yes"/"no" for noul), for the output token count. */
export function chosenText(q: Question, probs: number[]): string {
  if (q.type === "noul") return probs[0] >= 0.5 ? "yes" : "no";
  return q.options[argmax(probs)].name;
}
