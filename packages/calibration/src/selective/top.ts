import { checkBinary, checkLabelled, isMultiLabel } from "../input.js";
import { argsortUnit } from "../sort.js";
import type { Binary, Labelled, MultiLabel } from "../types.js";
import { multiLabelTop, topLabelUnchecked } from "../views.js";

/** Confidence and correctness of each item from multiclass, multi-label or already top-label data. Internal. */
export function topOf(
  x: Labelled | MultiLabel | Binary,
  fn: string,
): { p: ArrayLike<number>; y: ArrayLike<number>; n: number } {
  if ((x as Binary).p !== undefined) {
    const n = checkBinary(x as Binary, fn);
    return { p: (x as Binary).p, y: (x as Binary).y, n };
  }
  if (isMultiLabel(x as Labelled | MultiLabel)) {
    const t = multiLabelTop(x as MultiLabel);
    return { ...t, n: t.p.length };
  }
  const d = x as Labelled;
  const n = checkLabelled(d, fn);
  return { ...topLabelUnchecked(d.probs, n, d.k, d.gold), n };
}

/** Items grouped by distinct confidence, most confident first, with cumulative answered and error counts. */
export interface Groups {
  threshold: Float64Array;
  answered: Float64Array;
  errors: Float64Array;
  n: number;
}

/**
 * Walks the items in `order`, and at the last item of each run of equal confidence writes the confidence and the
 * answered and error counts so far (at the group's index); returns the number of groups. A loop of its own with
 * nothing after it but its result: V8 compiles a long loop while it runs, on the first call, and code after it that
 * needs type feedback (never run then) made every later call bail out of the compiled loop. It writes typed arrays:
 * an empty array given to it grows from small integers to doubles on the first call and again on every call (a
 * hidden-class change the compiled code did not expect, which threw it away each time).
 */
function cumulativeCounts(
  p: ArrayLike<number>,
  y: ArrayLike<number>,
  order: Uint32Array,
  n: number,
  threshold: Float64Array,
  answered: Float64Array,
  errors: Float64Array,
): number {
  let a = 0;
  let e = 0;
  let m = 0;
  for (let r = 0; r < n; r++) {
    const i = order[r];
    a++;
    if (y[i] !== 1) e++;
    if (r === n - 1 || p[order[r + 1]] !== p[i]) {
      threshold[m] = p[i];
      answered[m] = a;
      errors[m] = e;
      m++;
    }
  }
  return m;
}

/** Internal: cumulative answered/error counts when answering every item at confidence >= each distinct value. */
export function groups(p: ArrayLike<number>, y: ArrayLike<number>, n: number): Groups {
  const ascending = argsortUnit(p);
  const order = ascending.reverse(); // most confident first
  const threshold = new Float64Array(n);
  const answered = new Float64Array(n);
  const errors = new Float64Array(n);
  const m = cumulativeCounts(p, y, order, n, threshold, answered, errors);
  return { threshold: threshold.slice(0, m), answered: answered.slice(0, m), errors: errors.slice(0, m), n };
}
