/** One request's state, tokenised once and shared by every question of the request. */

import { extractFeatures, type StateFeatures } from "../bayes/features.js";
import { contentWords, isStopWord, stem } from "../text/stem.js";
import { countWords, type Scan, scanText, stateText } from "../text/tokenize.js";

/** Lazily computed views of a state: its scan, its stemmed content words, its Bayes features. */
export class StateView {
  readonly state: unknown;
  #scan: Scan | undefined;
  #stems: Map<string, number> | undefined;
  #features: StateFeatures | undefined;
  #sources: Map<string, string> | undefined;

  constructor(state: unknown) {
    this.state = state;
  }

  /** Lower-case words and punctuation count of the state's text (JSON for non-strings). */
  get scan(): Scan {
    this.#scan ??= scanText(stateText(this.state));
    return this.#scan;
  }

  /** Counts of the state's stemmed content words (keys of a mapping included). */
  get stems(): Map<string, number> {
    this.#stems ??= countWords(contentWords(this.scan.words));
    return this.#stems;
  }

  /** The first word of the state behind a stem (for reasoning texts). */
  sourceOf(s: string): string {
    if (!this.#sources) {
      this.#sources = new Map();
      for (const w of this.scan.words) {
        if (isStopWord(w)) continue;
        const key = stem(w);
        if (!this.#sources.has(key)) this.#sources.set(key, w);
      }
    }
    return this.#sources.get(s) ?? s;
  }

  /** The features the trained checkpoints read. */
  get features(): StateFeatures {
    this.#features ??= extractFeatures(this.state, () => this.scan.words);
    return this.#features;
  }
}
