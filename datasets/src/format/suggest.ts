/** Edit distance (Levenshtein) between two strings. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The candidate closest to `value` when it is plausibly a typo of it (same text up to case, or a few edits). */
export function closest(value: string, candidates: readonly string[]): string | undefined {
  const lower = value.toLowerCase().trim();
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = c.toLowerCase() === lower ? 0 : editDistance(lower, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(1, Math.min(3, Math.floor(Math.max(lower.length, best.length) / 3)));
  return bestD <= limit ? best : undefined;
}

/** `"a", "b", "c"`: a list of names for a message (at most `max`, then "and N more"). */
export function quoteList(names: readonly string[], max = 12): string {
  const shown = names.slice(0, max).map((n) => JSON.stringify(n));
  return names.length > max ? `${shown.join(", ")} and ${names.length - max} more` : shown.join(", ");
}

/** ' (did you mean "x"?)' when a close candidate exists, else "". */
export function didYouMean(value: string, candidates: readonly string[]): string {
  const c = closest(value, candidates);
  return c === undefined ? "" : ` (did you mean ${JSON.stringify(c)}?)`;
}

/** What a JSON value is, in words: "a number", "null", "a list", ... */
export function describeType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  if (typeof v === "string")
    return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  if (typeof v === "number") return `the number ${v}`;
  if (typeof v === "boolean") return `${v}`;
  return typeof v;
}
