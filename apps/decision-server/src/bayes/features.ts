/**
 * The features a trained checkpoint reads from a state: word counts for text, numbers, short categorical
 * values and which fields are present (so a model can learn when a fact is absent).
 */

import { countWords, scanText } from "../text/tokenize.js";

/** Features of one state. */
export interface StateFeatures {
  /** Raw counts of words (and shape tokens such as `#amount`) from a text state or long text fields. */
  words: Map<string, number>;
  /** Numeric fields by dotted path. */
  numeric: Map<string, number>;
  /** Short string and boolean fields by dotted path, values lower-cased. */
  categorical: Map<string, string>;
  /** Paths of every field with a non-null value. */
  present: Set<string>;
}

/** Longest trimmed string (in characters) still read as a category rather than as words. */
const CATEGORY_CHARS = 40;
/** Most words a category may have. */
const CATEGORY_WORDS = 4;
/** An ISO date (optionally with a time): read as its month, a season-like category. */
const ISO_DATE = /^\d{4}-(\d{2})-\d{2}(?:[T ][\d:.]+Z?)?$/;
/** Words longer than this (base64, URLs run together) are left out. */
const MAX_WORD = 30;

/** Extracts the features of a state; `textWords` returns the state's scanned words (reused when a string). */
export function extractFeatures(state: unknown, textWords?: () => string[]): StateFeatures {
  const f: StateFeatures = {
    words: new Map(),
    numeric: new Map(),
    categorical: new Map(),
    present: new Set(),
  };
  if (typeof state === "string") {
    addWords(f, textWords ? textWords() : scanText(state).words);
    addShapes(f, state);
  } else if (Array.isArray(state)) {
    walkList(f, state);
  } else if (typeof state === "object" && state !== null) {
    walk(f, state as Record<string, unknown>, "");
  } else if (typeof state === "number" || typeof state === "boolean") {
    addWords(f, [String(state)]);
  }
  return f;
}

function addWords(f: StateFeatures, words: readonly string[]): void {
  for (const [w, n] of countWords(words)) {
    if (w.length <= MAX_WORD) f.words.set(w, (f.words.get(w) ?? 0) + n);
  }
}

/** Shapes that a bag of words loses, kept as tokens: a currency amount, a quoted line, a web address. */
const SHAPES: [RegExp, string][] = [
  [/\p{Sc}\s?\d/gu, "#amount"],
  [/^[ \t]*>/gm, "#quoted-line"],
  [/\bhttps?:\/\//g, "#url"],
];

function addShapes(f: StateFeatures, text: string): void {
  for (const [re, token] of SHAPES) {
    const n = text.match(re)?.length ?? 0;
    if (n > 0) f.words.set(token, (f.words.get(token) ?? 0) + n);
  }
}

/** The weight of a word seen n times: 1 + ln n, so that long texts do not drown (Rennie et al. 2003). */
export function damp(n: number): number {
  return 1 + Math.log(n);
}

function walkList(f: StateFeatures, list: unknown[]): void {
  for (const v of list) {
    if (typeof v === "string") {
      addWords(f, scanText(v).words);
      addShapes(f, v);
    } else if (Array.isArray(v)) walkList(f, v);
    else if (typeof v === "object" && v !== null) walk(f, v as Record<string, unknown>, "");
    else if (typeof v === "number" || typeof v === "boolean") addWords(f, [String(v)]);
  }
}

function walk(f: StateFeatures, obj: Record<string, unknown>, prefix: string): void {
  for (const [key, value] of Object.entries(obj)) {
    const path = prefix + key;
    if (value === null || value === undefined) continue;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) continue;
      f.numeric.set(path, value);
    } else if (typeof value === "boolean") {
      f.categorical.set(path, String(value));
    } else if (typeof value === "string") {
      const trimmed = value.trim();
      if (trimmed === "") continue;
      const date = ISO_DATE.exec(trimmed);
      if (date) {
        f.categorical.set(`${path}.month`, date[1]);
        f.present.add(path);
        continue;
      }
      const words = scanText(trimmed).words;
      if (trimmed.length <= CATEGORY_CHARS && words.length <= CATEGORY_WORDS) {
        f.categorical.set(path, trimmed.toLowerCase());
      } else {
        addWords(f, words);
        addShapes(f, trimmed);
      }
    } else if (Array.isArray(value)) {
      walkList(f, value);
    } else if (typeof value === "object") {
      walk(f, value as Record<string, unknown>, path + ".");
    }
    f.present.add(path);
  }
}
