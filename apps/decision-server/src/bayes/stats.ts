/**
 * Sufficient statistics of a naive Bayes target (counts, means, sums of squares): what training produces
 * and what the disk cache stores. They are plain JSON, and turning them into a model is deterministic.
 */

import type { StateFeatures } from "./features.js";

/** Running mean and sum of squared deviations per class (Welford). */
interface NumericStats {
  n: number[];
  mean: number[];
  m2: number[];
}

/** Statistics of one target: one question a checkpoint answers, over its classes. */
export interface TargetStats {
  classes: string[];
  classCount: number[];
  /** Word counts: row-major [word index in the dataset vocabulary][class]. */
  wordCounts: number[];
  numeric: Record<string, NumericStats>;
  /** field -> value -> count per class. */
  categorical: Record<string, Record<string, number[]>>;
  /** field -> number of examples per class where it is present. */
  present: Record<string, number[]>;
}

/** A record without a prototype, so that any field name or value is an ordinary key. */
function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Empty statistics over the given classes (word counts are filled separately). */
export function emptyStats(classes: string[]): TargetStats {
  return {
    classes,
    classCount: classes.map(() => 0),
    wordCounts: [],
    numeric: dict(),
    categorical: dict(),
    present: dict(),
  };
}

function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}

/** Adds the class, numeric, categorical and presence statistics of one example of class `c`. */
export function addExample(s: TargetStats, f: StateFeatures, c: number): void {
  const k = s.classes.length;
  s.classCount[c]++;
  for (const [field, x] of f.numeric) {
    let st = s.numeric[field];
    if (!st) {
      st = { n: zeros(k), mean: zeros(k), m2: zeros(k) };
      s.numeric[field] = st;
    }
    st.n[c]++;
    const d = x - st.mean[c];
    st.mean[c] += d / st.n[c];
    st.m2[c] += d * (x - st.mean[c]);
  }
  for (const [field, v] of f.categorical) {
    let values = s.categorical[field];
    if (!values) {
      values = dict();
      s.categorical[field] = values;
    }
    let row = values[v];
    if (!row) {
      row = zeros(k);
      values[v] = row;
    }
    row[c]++;
  }
  for (const field of f.present) {
    let row = s.present[field];
    if (!row) {
      row = zeros(k);
      s.present[field] = row;
    }
    row[c]++;
  }
}
