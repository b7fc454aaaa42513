import type { Binary, Labelled, MultiLabel, ProbMatrix } from "./types.js";

// Input checks shared by every public function. Each error names the function, what is wrong and what is right.

function isArrayLike(x: unknown): x is ArrayLike<number> {
  return (
    x != null &&
    typeof x === "object" &&
    typeof (x as { length?: unknown }).length === "number" &&
    Number.isInteger((x as { length: number }).length)
  );
}

function checkProbability(v: number, fn: string, what: string, i: number): void {
  if (!(v >= 0 && v <= 1)) {
    throw new RangeError(`${fn}: ${what}[${i}] is ${v}; probabilities must be finite numbers in [0, 1]`);
  }
}

/** Number of rows of an N x K matrix, after checking its shape and values. */
export function rowsOf(m: ProbMatrix, fn: string): number {
  if (m == null || typeof m !== "object") throw new TypeError(`${fn}: expected { probs, k }, got ${m}`);
  if (!(m.probs instanceof Float64Array)) {
    throw new TypeError(`${fn}: probs must be a Float64Array (N x K, row-major)`);
  }
  if (!Number.isInteger(m.k) || m.k < 1) {
    throw new RangeError(`${fn}: k must be a positive integer (the number of options), got ${m.k}`);
  }
  if (m.probs.length % m.k !== 0) {
    throw new RangeError(
      `${fn}: probs has ${m.probs.length} values, not a multiple of k = ${m.k} (expected N x K, row-major)`,
    );
  }
  const probs = m.probs;
  // the result is worked out before the loop: V8 compiles a long loop while it runs, and a property read after it
  // (with no type feedback yet) made the compiled loop bail out on every call
  const rows = probs.length / m.k;
  for (let i = 0; i < probs.length; i++) checkProbability(probs[i], fn, "probs", i);
  return rows;
}

/** Number of items of multiclass predictions, after checking probabilities and gold indices. */
export function checkLabelled(d: Labelled, fn: string): number {
  const n = rowsOf(d, fn);
  if (!isArrayLike(d.gold)) throw new TypeError(`${fn}: gold must be an array of option indices`);
  if (d.gold.length !== n) {
    throw new RangeError(`${fn}: gold has ${d.gold.length} entries but probs has ${n} rows; they must match`);
  }
  for (let i = 0; i < n; i++) {
    const g = d.gold[i];
    if (!Number.isInteger(g) || g < 0 || g >= d.k) {
      throw new RangeError(`${fn}: gold[${i}] is ${g}; gold must be an option index in 0..${d.k - 1}`);
    }
  }
  return n;
}

/** Number of items of a binary problem, after checking probabilities and 0/1 outcomes. */
export function checkBinary(b: Binary, fn: string): number {
  if (b == null || typeof b !== "object") throw new TypeError(`${fn}: expected { p, y }, got ${b}`);
  if (!isArrayLike(b.p)) throw new TypeError(`${fn}: p must be an array of probabilities`);
  if (!isArrayLike(b.y)) throw new TypeError(`${fn}: y must be an array of 0/1 outcomes`);
  const n = b.p.length;
  if (b.y.length !== n) {
    throw new RangeError(`${fn}: y has ${b.y.length} entries but p has ${n}; they must match`);
  }
  for (let i = 0; i < n; i++) {
    checkProbability(b.p[i], fn, "p", i);
    const y = b.y[i];
    if (y !== 0 && y !== 1) throw new RangeError(`${fn}: y[${i}] is ${y}; outcomes must be 0 or 1`);
  }
  return n;
}

/** Number of items of multi-label predictions, after checking probabilities and 0/1 labels. */
export function checkMultiLabel(d: MultiLabel, fn: string): number {
  const n = rowsOf(d, fn);
  if (!isArrayLike(d.labels)) throw new TypeError(`${fn}: labels must be an array of 0/1 values (N x K)`);
  if (d.labels.length !== d.probs.length) {
    throw new RangeError(
      `${fn}: labels has ${d.labels.length} entries but probs has ${d.probs.length}; both are N x K`,
    );
  }
  for (let i = 0; i < d.labels.length; i++) {
    const y = d.labels[i];
    if (y !== 0 && y !== 1) throw new RangeError(`${fn}: labels[${i}] is ${y}; labels must be 0 or 1`);
  }
  return n;
}

/** True when the data are multi-label predictions rather than multiclass ones. */
export function isMultiLabel(d: Labelled | MultiLabel): d is MultiLabel {
  return (d as MultiLabel).labels !== undefined && (d as Labelled).gold === undefined;
}

/** A bin count, checked: a positive integer. */
export function checkBins(bins: number, fn: string): number {
  if (!Number.isInteger(bins) || bins < 1) {
    throw new RangeError(`${fn}: bins must be a positive integer, got ${bins}`);
  }
  return bins;
}

/** An interval level, checked: strictly between 0 and 1. */
export function checkLevel(level: number, fn: string): number {
  if (!(level > 0 && level < 1))
    throw new RangeError(`${fn}: level must be in (0, 1), e.g. 0.95; got ${level}`);
  return level;
}

/** Throws when there is nothing to measure. */
export function checkNonEmpty(n: number, fn: string): void {
  if (n === 0)
    throw new RangeError(`${fn}: no items to measure (escalated rows are excluded and none are left)`);
}
