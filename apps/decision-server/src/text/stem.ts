/** A light English suffix stripper and stop-word list for the lexical model's word overlap. */

const STOP_WORDS = new Set(
  (
    "a an the and or but if then else of to in on at by for with from into onto about as is are was were be been " +
    "being am do does did doing have has had having it its this that these those there here i me my we our you " +
    "your he him his she her they them their what which who whom whose when where why how not no nor so than too " +
    "very can could should would may might must will shall just also any all each some such only own same other " +
    "more most less least option apply applies answer input question given state stated following one"
  ).split(" "),
);

/** True for words that carry no topic (articles, auxiliaries, the scorer's own question phrasing). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word) || word.length < 2;
}

/** Strips common English inflections so that "charges", "charged" and "charge" meet. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 3 && w.endsWith("'s")) w = w.slice(0, -2);
  if (w.length > 4 && w.endsWith("ies")) return w.slice(0, -3) + "y";
  if (w.length > 5 && w.endsWith("ing")) return trimE(w.slice(0, -3));
  if (w.length > 4 && w.endsWith("ed")) return trimE(w.slice(0, -2));
  if (w.length > 4 && w.endsWith("es") && /(?:ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) return trimE(w.slice(0, -1));
  if (w.length > 4 && w.endsWith("ly")) return w.slice(0, -2);
  return trimE(w);
}

function trimE(w: string): string {
  return w.length > 3 && w.endsWith("e") ? w.slice(0, -1) : w;
}

/** Content words of a text, stemmed, stop words removed. */
export function contentWords(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of words) if (!isStopWord(w)) out.push(stem(w));
  return out;
}
