/** Word interning and vocabulary pruning for training: each example's words become (id, count) arrays. */

/** The words of one example as parallel arrays of word ids and (damped) counts. */
export interface WordRow {
  ids: Int32Array;
  counts: Float64Array;
}

/** Interns words to consecutive ids. */
export class Interner {
  readonly words: string[] = [];
  readonly #ids = new Map<string, number>();

  /** The (id, weight) arrays of a word-count map, each count turned into a weight by `weigh`. */
  row(counts: Map<string, number>, weigh: (n: number) => number): WordRow {
    const ids = new Int32Array(counts.size);
    const out = new Float64Array(counts.size);
    let i = 0;
    for (const [w, n] of counts) {
      let id = this.#ids.get(w);
      if (id === undefined) {
        id = this.words.length;
        this.words.push(w);
        this.#ids.set(w, id);
      }
      ids[i] = id;
      out[i++] = weigh(n);
    }
    return { ids, counts: out };
  }
}

/**
 * Chooses the vocabulary of a training share: words seen at least `minCount` times, the `max` most frequent
 * (ties broken by the word, so the result is deterministic). Returns the words in vocabulary order and, for
 * each interned id, its vocabulary index or -1.
 */
export function chooseVocabulary(
  interner: Interner,
  rows: readonly WordRow[],
  minCount: number,
  max: number,
): { vocab: string[]; index: Int32Array } {
  const total = new Float64Array(interner.words.length);
  for (const r of rows) for (let i = 0; i < r.ids.length; i++) total[r.ids[i]] += r.counts[i];
  const candidates: number[] = [];
  for (let id = 0; id < total.length; id++) if (total[id] >= minCount) candidates.push(id);
  const words = interner.words;
  candidates.sort((a, b) => total[b] - total[a] || (words[a] < words[b] ? -1 : words[a] > words[b] ? 1 : 0));
  const kept = candidates.slice(0, max);
  const index = new Int32Array(total.length).fill(-1);
  kept.forEach((id, i) => {
    index[id] = i;
  });
  return { vocab: kept.map((id) => words[id]), index };
}
