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
  checkProbabilities(m.probs, fn, "probs");
  return m.probs.length / m.k;
}

// The checks of every value are loops of their own, of the arrays (not the caller's object, whose hidden class differs
// from caller to caller), with nothing after the loop: V8 compiles a long loop while it runs, on the first call, and
// code after it that needs type feedback (never run then) made every later call bail out of the compiled loop.

function checkProbabilities(values: ArrayLike<number>, fn: string, what: string): void {
  for (let i = 0; i < values.length; i++) checkProbability(values[i], fn, what, i);
}

function checkGold(gold: ArrayLike<number>, k: number, fn: string): void {
  for (let i = 0; i < gold.length; i++) {
    const g = gold[i];
    if (!Number.isInteger(g) || g < 0 || g >= k) {
      throw new RangeError(`${fn}: gold[${i}] is ${g}; gold must be an option index in 0..${k - 1}`);
    }
  }
}

/** p and y item by item (so the first bad item is the one named, whichever array it is in). */
function checkBinaryValues(p: ArrayLike<number>, y: ArrayLike<number>, fn: string): void {
  for (let i = 0; i < p.length; i++) {
    checkProbability(p[i], fn, "p", i);
    const v = y[i];
    if (v !== 0 && v !== 1) throw new RangeError(`${fn}: y[${i}] is ${v}; outcomes must be 0 or 1`);
  }
}

function checkLabels(labels: ArrayLike<number>, fn: string): void {
  for (let i = 0; i < labels.length; i++) {
    const y = labels[i];
    if (y !== 0 && y !== 1) throw new RangeError(`${fn}: labels[${i}] is ${y}; labels must be 0 or 1`);
  }
}

/** Number of items of multiclass predictions, after checking probabilities and gold indices. */
export function checkLabelled(d: Labelled, fn: string): number {
  const n = rowsOf(d, fn);
  if (!isArrayLike(d.gold)) throw new TypeError(`${fn}: gold must be an array of option indices`);
  if (d.gold.length !== n) {
    throw new RangeError(`${fn}: gold has ${d.gold.length} entries but probs has ${n} rows; they must match`);
  }
  checkGold(d.gold, d.k, fn);
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
  checkBinaryValues(b.p, b.y, fn);
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
  checkLabels(d.labels, fn);
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
