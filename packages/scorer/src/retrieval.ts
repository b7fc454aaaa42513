/** Estimated tokens per unit (word or punctuation mark), as the contract counts them. */
export const TOKENS_PER_UNIT = 1.3;

/** Estimated tokens of a text: (words + punctuation) * TOKENS_PER_UNIT. */
export function estimateTokens(text: string): number {
  return countUnits(text) * TOKENS_PER_UNIT;
}

/**
 * The words and punctuation marks of a text. Never more than its length: each takes at least one character.
 * Units never span whitespace, so the units of texts joined by whitespace add up.
 */
export function countUnits(text: string): number {
  let units = 0;
  for (const _ of text.matchAll(UNIT)) units++;
  return units;
}

/** A word (letters and digits) or one punctuation or symbol character. */
const UNIT = /[\p{L}\p{N}\p{M}]+|[^\p{L}\p{N}\p{M}\s]/gu;
const WORD = /[\p{L}\p{N}]+/gu;

interface Passage {
  index: number;
  text: string;
  tokens: number;
  score: number;
}

/**
 * Long-document retrieval: keeps the passages of `text` most relevant to `query`, in their original order, so
 * that they fit `budget` estimated tokens. Text already within the budget comes back unchanged.
 */
export function selectPassages(text: string, query: string, budget: number): string {
  if (estimateTokens(text) <= budget) return text;
  const passages = splitPassages(text, Math.max(8, budget / 2));
  scorePassages(passages, query);
  const ranked = [...passages].sort((a, b) => b.score - a.score || a.index - b.index);
  const kept: Passage[] = [];
  let used = 0;
  for (const p of ranked) {
    if (used + p.tokens <= budget) {
      kept.push(p);
      used += p.tokens;
    }
  }
  if (kept.length === 0) return cutToBudget(ranked[0].text, budget);
  kept.sort((a, b) => a.index - b.index);
  return kept.map((p) => p.text).join("\n\n");
}

/** Paragraphs, then sentences, then word windows, each at most `limit` estimated tokens. */
function splitPassages(text: string, limit: number): Passage[] {
  const out: Passage[] = [];
  const push = (piece: string) => {
    const trimmed = piece.trim();
    if (trimmed) out.push({ index: out.length, text: trimmed, tokens: estimateTokens(trimmed), score: 0 });
  };
  for (const paragraph of text.split(/\n\s*\n/)) {
    if (estimateTokens(paragraph) <= limit) {
      push(paragraph);
      continue;
    }
    let sentence = "";
    for (const part of paragraph.split(/(?<=[.!?])\s+/)) {
      if (estimateTokens(part) > limit) {
        push(sentence);
        sentence = "";
        for (const window of wordWindows(part, limit)) push(window);
      } else if (estimateTokens(`${sentence} ${part}`) > limit) {
        push(sentence);
        sentence = part;
      } else {
        sentence = sentence ? `${sentence} ${part}` : part;
      }
    }
    push(sentence);
  }
  return out;
}

function wordWindows(text: string, limit: number): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const word of text.split(/\s+/)) {
    const t = estimateTokens(word);
    if (tokens + t > limit && current.length > 0) {
      out.push(current.join(" "));
      current = [];
      tokens = 0;
    }
    current.push(word);
    tokens += t;
  }
  if (current.length) out.push(current.join(" "));
  return out;
}

/** BM25-like relevance of each passage to the query's words, with IDF over the document's passages. */
function scorePassages(passages: Passage[], query: string): void {
  const terms = new Set(words(query).filter((w) => !STOP.has(w)));
  const tf = passages.map((p) => {
    const counts = new Map<string, number>();
    for (const w of words(p.text)) if (terms.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
    return counts;
  });
  const n = passages.length;
  const avg = passages.reduce((s, p) => s + p.tokens, 0) / n;
  for (const term of terms) {
    const df = tf.filter((c) => c.has(term)).length;
    if (df === 0) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    passages.forEach((p, i) => {
      const f = tf[i].get(term) ?? 0;
      if (f) p.score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * p.tokens) / avg));
    });
  }
}

function words(text: string): string[] {
  return Array.from(text.toLowerCase().matchAll(WORD), (m) => m[0]);
}

function cutToBudget(text: string, budget: number): string {
  return wordWindows(text, budget)[0] ?? "";
}

const STOP = new Set(
  "a an and are as at be but by does do for from has have how if in into is it its of on or that the this to was what when which who why will with you your".split(
    " ",
  ),
);
