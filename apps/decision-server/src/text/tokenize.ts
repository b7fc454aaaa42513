/** Tokenisation shared by every model: lower-case words, punctuation counts, the usage estimate. */

const TOKEN = /([\p{L}\p{N}]+)|[^\p{L}\p{N}\s]/gu;

/** Words of a text in order, lower-cased; punctuation marks are counted, not kept. */
export interface Scan {
  words: string[];
  punctuation: number;
}

/** Splits a text into lower-case words and counts its punctuation marks, in one pass. */
export function scanText(text: string): Scan {
  const words: string[] = [];
  let punctuation = 0;
  const lower = text.toLowerCase();
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(lower); m !== null; m = TOKEN.exec(lower)) {
    if (m[1] !== undefined) words.push(m[1]);
    else punctuation++;
  }
  return { words, punctuation };
}

/** The contract's estimate of model tokens: (words + punctuation) * 1.3. */
export function estimateTokens(scan: Scan): number {
  return Math.ceil((scan.words.length + scan.punctuation) * 1.3);
}

/**
 * The same token estimate as `estimateTokens(scanText(text))` without building the word list: one pass
 * over the characters (any non-ASCII character counts as a letter).
 */
export function countTokens(text: string): number {
  let words = 0;
  let punctuation = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const letter = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127;
    if (letter) {
      if (!inWord) words++;
      inWord = true;
    } else {
      inWord = false;
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) punctuation++;
    }
  }
  return Math.ceil((words + punctuation) * 1.3);
}

/** Counts of each word. */
export function countWords(words: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** The text a model reads for a state: a string as is, anything else as its JSON (key order kept). */
export function stateText(state: unknown): string {
  return typeof state === "string" ? state : JSON.stringify(state);
}
