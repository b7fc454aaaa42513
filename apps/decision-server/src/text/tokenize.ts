/** Tokenisation shared by every model: lower-case words, punctuation counts, the usage estimate. */

const TOKEN = /[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu;
const WORD_START = /[\p{L}\p{N}]/u;

/** Words of a text in order, lower-cased; punctuation marks are counted, not kept. */
export interface Scan {
  words: string[];
  punctuation: number;
}

/** Splits a text into lower-case words and counts its punctuation marks, in one pass. */
export function scanText(text: string): Scan {
  const words: string[] = [];
  let punctuation = 0;
  for (const match of text.toLowerCase().matchAll(TOKEN)) {
    const token = match[0];
    if (WORD_START.test(token[0])) words.push(token);
    else punctuation++;
  }
  return { words, punctuation };
}

/** The contract's estimate of model tokens: (words + punctuation) * 1.3. */
export function estimateTokens(scan: Scan): number {
  return Math.ceil((scan.words.length + scan.punctuation) * 1.3);
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
