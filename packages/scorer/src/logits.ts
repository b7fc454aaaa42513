import { CLIP, NOT_STATED } from "./constants.js";
import type { NormalItem } from "./items.js";
import { NS_SUFFIX } from "./questions.js";
import type { ReadResult } from "./types.js";

/** A reply that breaks the contract; becomes the escalation `invalid decision output: <detail>`. */
export class InvalidOutput extends Error {
  override name = "InvalidOutput";
}

/** Reads one probability, refusing what the contract calls invalid. */
function probability(value: unknown, what: string): number {
  if (value === undefined || value === null) throw new InvalidOutput(`${what} is missing`);
  if (typeof value === "boolean") throw new InvalidOutput(`${what} is a boolean (${value}), not a number`);
  if (typeof value === "string")
    throw new InvalidOutput(`${what} is a string (${JSON.stringify(value)}), not a number`);
  if (typeof value !== "number") throw new InvalidOutput(`${what} is not a number (${typeof value})`);
  if (Number.isNaN(value)) throw new InvalidOutput(`${what} is NaN`);
  if (!(value >= 0 && value <= 1)) throw new InvalidOutput(`${what} is ${value}, outside 0..1`);
  return value;
}

function answerObject(answer: unknown, id: string): Record<string, unknown> {
  if (answer === undefined || answer === null) throw new InvalidOutput(`no answer for ${id}`);
  if (typeof answer !== "object" || Array.isArray(answer)) {
    throw new InvalidOutput(`the answer for ${id} is not an object`);
  }
  return answer as Record<string, unknown>;
}

/** A number in 0..1: the common case, checked without building the text of an error. */
function plain(value: unknown): value is number {
  return typeof value === "number" && value >= 0 && value <= 1;
}

/** P(yes) of a `noul` answer. */
function noulProbability(answer: unknown, id: string): number {
  const value = answerObject(answer, id).noul;
  return plain(value) ? value : probability(value, `the probability (noul) of ${id}`);
}

/** Log-probabilities over the item's outcomes (options, then `not stated`), from a single-question answer. */
export function singleLogits(item: NormalItem, answer: unknown, id: string): number[] {
  if (item.kind === "yesno" && !item.notStated) {
    const p = clip(noulProbability(answer, id));
    return [Math.log(p), Math.log(1 - p)];
  }
  const probs = answerObject(answer, id).probabilities;
  if (typeof probs !== "object" || probs === null || Array.isArray(probs)) {
    throw new InvalidOutput(`the answer for ${id} has no probabilities`);
  }
  const table = probs as Record<string, unknown>;
  const { options } = item;
  const count = options.length + (item.notStated ? 1 : 0);
  const out = new Array<number>(count);
  let sum = 0;
  for (let k = 0; k < count; k++) {
    const name = k < options.length ? options[k].name : NOT_STATED;
    const value = table[name];
    const p = Math.max(
      CLIP,
      plain(value) ? value : probability(value, `the probability of '${name}' in ${id}`),
    );
    out[k] = p;
    sum += p;
  }
  const logSum = Math.log(sum);
  for (let k = 0; k < count; k++) out[k] = Math.log(out[k]) - logSum;
  return out;
}

/** Reads the answers of one item (suffix -> answer) into logits and the `not stated` score. */
export function readAnswers(item: NormalItem, answers: Record<string, unknown>, prefix = ""): ReadResult {
  if (item.kind === "multi") {
    const logits = item.options.map((_, j) => logOdds(noulProbability(answers[`__${j}`], `${prefix}__${j}`)));
    if (!item.notStated) return { logits };
    return { logits, unknown: logOdds(noulProbability(answers[NS_SUFFIX], prefix + NS_SUFFIX)) };
  }
  const all = singleLogits(item, answers[""], prefix || "the question");
  if (!item.notStated) return { logits: all };
  return { logits: all.slice(0, -1), unknown: all[all.length - 1] };
}

/** Clips a probability into [CLIP, 1 - CLIP]. */
function clip(p: number): number {
  return Math.min(Math.max(p, CLIP), 1 - CLIP);
}

/** log(p / (1 - p)) after clipping. */
function logOdds(p: number): number {
  const c = clip(p);
  return Math.log(c) - Math.log(1 - c);
}

/** The logistic function, inverse of logOdds. */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** Softmax of log-scores. */
export function softmax(logits: number[]): number[] {
  let max = Number.NEGATIVE_INFINITY;
  for (const x of logits) if (x > max) max = x;
  const exps = logits.map((x) => Math.exp(x - max));
  let sum = 0;
  for (const e of exps) sum += e;
  return exps.map((e) => e / sum);
}
