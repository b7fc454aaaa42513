/** Edit distance with adjacent transpositions (optimal string alignment): "yse" is 1 from "yes". */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The candidate closest to `value` when it is plausibly a typo of it (case, a few edits, or a prefix). */
function closest(value: string, candidates: readonly string[]): string | undefined {
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
  if (bestD <= limit) return best;
  // A shortened or lengthened name ("ident" for "id", "prop" for "properties").
  return candidates.find((c) => {
    const l = c.toLowerCase();
    return Math.min(l.length, lower.length) >= 2 && (l.startsWith(lower) || lower.startsWith(l));
  });
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
