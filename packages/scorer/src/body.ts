import type { NormalItem } from "./items.js";
import { buildQuestions } from "./questions.js";
import type { State } from "./types.js";

/** What one item sends: its question ids' suffixes and each question serialised, built once per item. */
interface Wire {
  suffixes: string[];
  json: string[];
}

const wires = new WeakMap<NormalItem, Wire>();

/** The name suffixes of an item's questions (`""`, `__{j}`, `__ns`), in the order they are sent. */
export function questionSuffixes(item: NormalItem): string[] {
  return wireOf(item).suffixes;
}

function wireOf(item: NormalItem): Wire {
  let wire = wires.get(item);
  if (!wire) {
    const entries = Object.entries(buildQuestions(item));
    wire = { suffixes: entries.map(([suffix]) => suffix), json: entries.map(([, q]) => JSON.stringify(q)) };
    wires.set(item, wire);
  }
  return wire;
}

/**
 * Writes request bodies for one model and extra_body: the text of
 * `JSON.stringify({...extraBody, model, state, questions})`, with the questions `q{i}{suffix}` of each item,
 * assembled from pieces serialised once per item so only the state is serialised per request.
 */
export class BodyWriter {
  readonly #head: string;
  /** The last list of items and the questions they send: callers mostly ask the same items again. */
  #last: { items: NormalItem[]; questions: string; count: number } | undefined;

  constructor(model: string, extraBody: Record<string, unknown> | undefined) {
    const head = JSON.stringify({ ...extraBody, model });
    this.#head = head.slice(0, -1);
  }

  /** The body's text and the number of questions it asks. */
  write(state: State, items: NormalItem[]): { text: string; count: number } {
    const { questions, count } = this.#questions(items);
    // Serialised under its key, as in the whole object: a toJSON(key) sees "state", and a state that
    // serialises to nothing leaves the key out.
    const wrapped = JSON.stringify({ state });
    const text =
      wrapped.length > 2
        ? `${this.#head},${wrapped.slice(1, -1)},"questions":{${questions}}}`
        : `${this.#head},"questions":{${questions}}}`;
    return { text, count };
  }

  #questions(items: NormalItem[]): { questions: string; count: number } {
    const last = this.#last;
    if (last && sameItems(last.items, items)) return last;
    let questions = "";
    let count = 0;
    for (let i = 0; i < items.length; i++) {
      const { suffixes, json } = wireOf(items[i]);
      for (let j = 0; j < suffixes.length; j++) {
        questions += `${count === 0 ? "" : ","}"q${i}${suffixes[j]}":${json[j]}`;
        count++;
      }
    }
    this.#last = { items: items.slice(), questions, count };
    return this.#last;
  }
}

function sameItems(a: NormalItem[], b: NormalItem[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
