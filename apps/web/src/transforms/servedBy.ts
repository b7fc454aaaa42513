/**
 * The "Served by" text of a run. The reference server names a reply `<model>+lexical` when a question of the
 * request fell back to its lexical model (no checkpoint of `<model>` knew it); a run records the distinct names
 * its replies gave. Those names read as "lexical fallback" here instead of a checkpoint that did not answer.
 */

const FALLBACK = "+lexical";

/**
 * "bayes-2" when no reply fell back; "bayes-2 · lexical fallback" when some replies did; "lexical fallback" when
 * every reply did (the run's names all end in `+lexical`); "—" when nothing was recorded yet. Several models are
 * listed in their order, each once.
 */
export function servedByLabel(servedBy: readonly string[]): string {
  if (servedBy.length === 0) return "—";
  const fellBack = servedBy.filter((s) => s.endsWith(FALLBACK));
  if (fellBack.length === servedBy.length) return "lexical fallback";
  const models = [...new Set(servedBy.map((s) => (s.endsWith(FALLBACK) ? s.slice(0, -FALLBACK.length) : s)))];
  return `${models.join(", ")}${fellBack.length > 0 ? " · lexical fallback" : ""}`;
}
