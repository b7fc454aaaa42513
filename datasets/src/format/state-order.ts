/**
 * A mapping state's key order as written in its file. JavaScript objects list integer-like ("array index") keys
 * such as "2" or "10" first, in ascending order, whatever order they were written in, so a state parsed from
 * `{"zeta": 0, "2": "two"}` reads back as `{"2": "two", "zeta": 0}`. A service reads a mapping state in its key
 * order; an example whose parsed state lost its file's order keeps that order as `stateJson`: the state's JSON
 * text exactly as JSON.stringify writes it, except that every object's keys follow the file.
 */

import type { State } from "../types.js";

/** Whether JSON text may hold an integer-like key: a quoted run of digits before a colon (a cheap first check). */
const MAY_HOLD_INDEX_KEY = /"(?:0|[1-9]\d*)"\s*:/;

/** A backslash or a UTF-16 surrogate: a string token JSON.stringify might write otherwise. */
const ESCAPED_OR_SURROGATE = /[\\\ud800-\udfff]/;

/** Whether JavaScript lists this key before the others: an array index, "0" to "4294967294". */
export function isIndexKey(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) <= 4294967294;
}

/**
 * `json` (a state's JSON text as JSON.stringify writes it, keys in their file order) when it keeps a key order
 * `state` (its parsed value) lost, else undefined. Read back from storage, this restores an example's `stateJson`.
 */
export function reorderedJson(json: string, state: State): string | undefined {
  if (typeof state === "string" || !MAY_HOLD_INDEX_KEY.test(json)) return undefined;
  return json === JSON.stringify(state) ? undefined : json;
}

/**
 * The `stateJson` of a JSONL line's example (the line has passed JSON.parse; `state` is its parsed state), or
 * undefined when the parsed state keeps the line's key order.
 */
export function lineStateJson(line: string, state: State): string | undefined {
  if (typeof state === "string" || !MAY_HOLD_INDEX_KEY.test(line)) return undefined;
  const reader = new OrderedReader(line);
  let found: string | undefined;
  reader.object((key, _keyJson, at) => {
    if (key !== "state") return reader.skip(at);
    const { text, end } = reader.value(at);
    found = text; // JSON.parse keeps the last of repeated keys
    return end;
  });
  return found === undefined || found === JSON.stringify(state) ? undefined : found;
}

/**
 * The `stateJson` of a CSV row's mapping state, its fields given in column order (names, and the parsed state
 * holding those that are not empty), or undefined when the parsed state keeps the column order.
 */
export function fieldsStateJson(
  names: readonly string[],
  state: Record<string, unknown>,
): string | undefined {
  let text = "{";
  for (const name of names) {
    if (!Object.hasOwn(state, name)) continue;
    text += `${text.length > 1 ? "," : ""}${JSON.stringify(name)}:${JSON.stringify(state[name])}`;
  }
  text += "}";
  return text === JSON.stringify(state) ? undefined : text;
}

/** Writes valid JSON text again as JSON.stringify would write its parsed value, but with keys in text order. */
class OrderedReader {
  constructor(private readonly text: string) {}

  private space(i: number): number {
    const t = this.text;
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
    return i;
  }

  /** The end of the string starting at `i` (its opening quote), after its closing quote. */
  private stringEnd(i: number): number {
    const t = this.text;
    for (let j = i + 1; j < t.length; j++) {
      const c = t.charCodeAt(j);
      if (c === 0x5c) j++;
      else if (c === 0x22) return j + 1;
    }
    return t.length;
  }

  /** The end of the value starting at `i`. */
  skip(i: number): number {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === 0x22) return this.stringEnd(i);
    if (c !== 0x7b && c !== 0x5b) return this.scalarEnd(i);
    let depth = 0;
    for (let j = i; j < t.length; j++) {
      const d = t.charCodeAt(j);
      if (d === 0x22) j = this.stringEnd(j) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return j + 1;
    }
    return t.length;
  }

  /** The end of the number, true, false or null starting at `i`. */
  private scalarEnd(i: number): number {
    const t = this.text;
    let end = i;
    while (end < t.length) {
      const d = t.charCodeAt(end);
      if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d)
        break;
      end++;
    }
    return end;
  }

  /**
   * Walks the object starting at or after `i`: `each(key, keyJson, valueStart)` returns where the value ends (keyJson:
   * the key as JSON.stringify writes it). Returns the end of the object.
   */
  object(each: (key: string, keyJson: string, valueStart: number) => number, i = 0): number {
    const t = this.text;
    i = this.space(i) + 1; // past "{"
    while (true) {
      i = this.space(i);
      if (t.charCodeAt(i) === 0x7d) return i + 1; // "}"
      const keyEnd = this.stringEnd(i);
      const token = t.slice(i, keyEnd);
      const plain = !ESCAPED_OR_SURROGATE.test(token);
      const key = plain ? token.slice(1, -1) : (JSON.parse(token) as string);
      i = this.space(keyEnd) + 1; // past ":"
      i = this.space(each(key, plain ? token : JSON.stringify(key), this.space(i)));
      if (t.charCodeAt(i) === 0x2c) i++; // ","
    }
  }

  /** The value starting at `i`, written as JSON.stringify writes it (keys in text order), and where it ends. */
  value(i: number): { text: string; end: number } {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === 0x7b) {
      // "{": a repeated key keeps its first place and its last value, as JSON.parse does
      const keys: string[] = [];
      const keyJson: string[] = [];
      const values: string[] = [];
      let place: Map<string, number> | undefined; // past 16 keys; fewer are looked up faster in the list
      const end = this.object((key, json, at) => {
        const v = this.value(at);
        if (place === undefined && keys.length === 16) place = new Map(keys.map((k, n) => [k, n]));
        const p = place === undefined ? keys.indexOf(key) : (place.get(key) ?? -1);
        if (p < 0) {
          place?.set(key, keys.length);
          keys.push(key);
          keyJson.push(json);
          values.push(v.text);
        } else values[p] = v.text;
        return v.end;
      }, i);
      let text = "{";
      for (let k = 0; k < keys.length; k++) text += `${k > 0 ? "," : ""}${keyJson[k]}:${values[k]}`;
      return { text: `${text}}`, end };
    }
    if (c === 0x5b) {
      // "["
      let text = "[";
      let j = this.space(i + 1);
      let first = true;
      while (t.charCodeAt(j) !== 0x5d) {
        const v = this.value(j);
        text += (first ? "" : ",") + v.text;
        first = false;
        j = this.space(v.end);
        if (t.charCodeAt(j) === 0x2c) j = this.space(j + 1);
      }
      return { text: `${text}]`, end: j + 1 };
    }
    if (c === 0x22) {
      const end = this.stringEnd(i);
      const token = t.slice(i, end);
      // without escapes or surrogates, JSON.stringify would write the string exactly as the file does
      return { text: ESCAPED_OR_SURROGATE.test(token) ? JSON.stringify(JSON.parse(token)) : token, end };
    }
    // a number, true, false or null
    const end = this.scalarEnd(i);
    return { text: JSON.stringify(JSON.parse(t.slice(i, end))), end };
  }
}
