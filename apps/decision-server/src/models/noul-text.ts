/** Reads the scorer's noul phrasings: a multi-label option, the multi-label "not stated", or a plain yes/no. */

/** What a noul question asks. */
export type NoulAsk =
  | { kind: "option"; question: string; name: string; description: string | null }
  | { kind: "not-stated"; question: string }
  | { kind: "plain"; question: string };

const OPTION = /^([\s\S]*?)\s*Does the option '([\s\S]*?)'(?: \(([\s\S]*)\))? apply\?\s*$/;
const NOT_STATED = /^([\s\S]*?)\s*Is the answer not stated in the input\?/;

/** Splits a noul instruction into the item's question and what it asks about it. */
export function parseNoul(instructions: string): NoulAsk {
  const option = OPTION.exec(instructions);
  if (option) {
    return { kind: "option", question: option[1], name: option[2], description: option[3] ?? null };
  }
  const ns = NOT_STATED.exec(instructions);
  if (ns) return { kind: "not-stated", question: ns[1] };
  return { kind: "plain", question: instructions };
}

/** The scorer's description of the `not stated` option begins with these words. */
export function isNotStated(name: string, description: string | null): boolean {
  return name === "not stated" || (description ?? "").startsWith("The input does not state it");
}
