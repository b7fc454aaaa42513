import { LRUCache } from "lru-cache";
import { CACHE_SIZE } from "./constants.js";
import type { NormalItem } from "./items.js";
import { OrderedState } from "./orderedState.js";
import { buildQuestions, questionJson } from "./questions.js";
import type { State } from "./types.js";

/** What one item sends: its question ids' suffixes and each question serialised, built once per item. */
interface Wire {
  suffixes: string[];
  json: string[];
  /** Per place in a call: the questions' ids. */
  ids: string[][];
}

const wires = new WeakMap<NormalItem, Wire>();

/** The name suffixes of an item's questions (`""`, `__{j}`, `__ns`), in the order they are sent. */
export function questionSuffixes(item: NormalItem): string[] {
  return wireOf(item).suffixes;
}

const prefixes: string[] = [];

/** `q{i}`: the id of the item at place i of a call (its questions' ids are this and a suffix). */
export function questionPrefix(i: number): string {
  let prefix = prefixes[i];
  if (prefix === undefined) {
    prefix = `q${i}`;
    if (i < 256) prefixes[i] = prefix;
  }
  return prefix;
}

/** The ids `q{i}{suffix}` of an item's questions at place i of a call, made once (reply lookups reuse them). */
export function questionIds(item: NormalItem, i: number): string[] {
  const wire = wireOf(item);
  let ids = wire.ids[i];
  if (ids === undefined) {
    ids = wire.suffixes.map((suffix) => questionPrefix(i) + suffix);
    if (i < 256) wire.ids[i] = ids;
  }
  return ids;
}

function wireOf(item: NormalItem): Wire {
  let wire = wires.get(item);
  if (!wire) {
    const entries = Object.entries(buildQuestions(item));
    wire = {
      suffixes: entries.map(([suffix]) => suffix),
      json: entries.map(([, q]) => questionJson(item, q)),
      ids: [],
    };
    wires.set(item, wire);
  }
  return wire;
}

/** What a request sends, and the key that stands for it in the answer cache. */
export interface Body {
  /** The JSON text sent. */
  text: string;
  /**
   * Equal for equal bodies of one writer, and far shorter than the text (whose questions repeat from call
   * to call): a number for the questions, then the state's JSON. Hashing it is what a cache lookup costs.
   */
  key: string;
  /** The number of questions asked. */
  count: number;
}

interface Questions {
  items: NormalItem[];
  /** The `questions` object's members, serialised. */
  text: string;
  count: number;
  /** `{n}:`, one number per distinct questions text. */
  id: string;
}

/**
 * Writes request bodies for one model and extra_body: the text of
 * `JSON.stringify({...extraBody, model, state, questions})`, with the questions `q{i}{suffix}` of each item,
 * assembled from pieces serialised once per item so only the state is serialised per request.
 */
export class BodyWriter {
  readonly #head: string;
  /** The last list of items and the questions they send: callers mostly ask the same items again. */
  #last: Questions | undefined;
  /**
   * Questions text -> its number. A number is never given twice, so equal keys always mean equal bodies;
   * a questions text forgotten here (after ID_LIMIT others) gets a new number: its old bodies can no longer
   * be found in the cache, which is the worst that happens.
   */
  readonly #ids = new LRUCache<string, string>({ max: ID_LIMIT });
  #nextId = 0;

  constructor(model: string, extraBody: Record<string, unknown> | undefined) {
    const head = JSON.stringify({ ...extraBody, model });
    this.#head = head.slice(0, -1);
  }

  /** The body of one request: its text, its cache key and the number of questions. */
  write(state: State, items: NormalItem[]): Body {
    const questions = this.#questions(items);
    // Serialised under its key, as in the whole object: a toJSON(key) sees "state", and a state that
    // serialises to nothing leaves the key out. An OrderedState is sent as its own text.
    const wrapped = state instanceof OrderedState ? `{"state":${state.json}}` : JSON.stringify({ state });
    const text =
      wrapped.length > 2
        ? `${this.#head},${wrapped.slice(1, -1)},"questions":{${questions.text}}}`
        : `${this.#head},"questions":{${questions.text}}}`;
    return { text, key: questions.id + wrapped, count: questions.count };
  }

  #questions(items: NormalItem[]): Questions {
    const last = this.#last;
    if (last && sameItems(last.items, items)) return last;
    let text = "";
    let count = 0;
    for (let i = 0; i < items.length; i++) {
      const { suffixes, json } = wireOf(items[i]);
      for (let j = 0; j < suffixes.length; j++) {
        text += `${count === 0 ? "" : ","}"q${i}${suffixes[j]}":${json[j]}`;
        count++;
      }
    }
    let id = this.#ids.get(text);
    if (id === undefined) {
      id = `${this.#nextId++}:`;
      this.#ids.set(text, id);
    }
    this.#last = { items: items.slice(), text, count, id };
    return this.#last;
  }
}

/** Distinct questions texts whose numbers are kept: twice the answers the cache holds. */
const ID_LIMIT = 2 * CACHE_SIZE;

function sameItems(a: NormalItem[], b: NormalItem[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
