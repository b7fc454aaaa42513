import { NOT_STATED, NOT_STATED_DESCRIPTION } from "./constants.js";
import type { NormalItem, NormalOption } from "./items.js";
import type { Question } from "./types.js";

/** Suffix of the multi-label `not stated` question. */
export const NS_SUFFIX = "__ns";

const built = new WeakMap<NormalItem, Readonly<Record<string, Question>>>();

/** The questions of one item, keyed by name suffix, exactly as the wire format sends them (built once). */
export function buildQuestions(item: NormalItem): Readonly<Record<string, Question>> {
  let questions = built.get(item);
  if (!questions) {
    questions = build(item);
    built.set(item, questions);
  }
  return questions;
}

function build(item: NormalItem): Record<string, Question> {
  if (item.kind === "multi") {
    const out: Record<string, Question> = {};
    item.options.forEach((opt, j) => {
      out[`__${j}`] = { type: "noul", instructions: `${item.question} ${optionClause(opt)}` };
    });
    if (item.notStated) {
      out[NS_SUFFIX] = {
        type: "noul",
        instructions: `${item.question} Is the answer not stated in the input? ${NOT_STATED_DESCRIPTION}`,
      };
    }
    return out;
  }
  if (item.kind === "yesno" && !item.notStated) {
    return { "": { type: "noul", instructions: item.question } };
  }
  const criteria: Record<string, string | null> = {};
  for (const opt of item.options) {
    Object.defineProperty(criteria, opt.name, {
      value: opt.description,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (item.notStated) criteria[NOT_STATED] = NOT_STATED_DESCRIPTION;
  return { "": { type: "choice", instructions: item.question, criteria } };
}

/**
 * The JSON text of one of an item's questions as sent: a choice's `criteria` written in the item's option
 * order (`not stated` last). Serialising the criteria object would put integer-like option names ("1", "10")
 * first, as JavaScript orders any object's keys.
 */
export function questionJson(item: NormalItem, question: Question): string {
  if (question.type !== "choice") return JSON.stringify(question);
  let criteria = "";
  for (const opt of item.options) {
    criteria += `${criteria === "" ? "" : ","}${JSON.stringify(opt.name)}:${JSON.stringify(opt.description)}`;
  }
  if (item.notStated) {
    criteria += `${criteria === "" ? "" : ","}${JSON.stringify(NOT_STATED)}:${JSON.stringify(NOT_STATED_DESCRIPTION)}`;
  }
  return `{"type":"choice","instructions":${JSON.stringify(question.instructions)},"criteria":{${criteria}}}`;
}

function optionClause(opt: NormalOption): string {
  const described = opt.description ? ` (${opt.description})` : "";
  return `Does the option '${opt.name}'${described} apply?`;
}
