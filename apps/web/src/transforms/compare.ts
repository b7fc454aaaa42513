/**
 * Comparison of runs: which run is the baseline and the order the others are asked in, metric rows with paired
 * deltas read "new vs baseline", the served-model banner, pages of flipped answers and links to their details.
 */

import { ITEMS_PAGE } from "@decision-workbench/api/limits";
import type { Comparison, MaybeCI } from "@decision-workbench/api/shapes";
import { formatCI, formatDelta, type Unit } from "./format";
import { metricInfo } from "./metrics";

/** What the ordering needs of a run: its id and when it was created (ISO 8601). */
interface Dated {
  id: string;
  createdAt: string;
}

/** The compared runs: the baseline and every run in the order the comparison is asked (baseline first). */
export interface CompareOrder {
  baseline: string;
  /** The baseline, then the other runs oldest first (runs not in the list last, in the address's order). */
  order: string[];
  /** The baseline was chosen in the address (else it is the oldest run). */
  chosen: boolean;
}

/**
 * Orders the runs of `?runs=` for a comparison: the baseline is `baseline` when it is one of them, else the OLDEST
 * run by creation time, whatever order the address or the Runs page gave; the others follow oldest first, so every
 * delta reads "newer run vs baseline" unless someone picked a newer baseline. Runs missing from `known` (deleted,
 * or the list not loaded) keep their place after the known ones.
 */
export function compareOrder(chosen: string[], known: Dated[], baseline?: string | null): CompareOrder {
  const created = new Map(known.map((r) => [r.id, Date.parse(r.createdAt)]));
  const dated = chosen.filter((id) => created.has(id));
  const undated = chosen.filter((id) => !created.has(id));
  dated.sort((a, b) => (created.get(a) ?? 0) - (created.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  const byAge = [...dated, ...undated];
  const picked = !!baseline && chosen.includes(baseline);
  const base = picked ? (baseline as string) : (byAge[0] ?? "");
  return { baseline: base, order: base ? [base, ...byAge.filter((id) => id !== base)] : [], chosen: picked };
}

/**
 * The baseline after "Swap": the run after the baseline in the order (with two runs, the other one).
 */
export function swappedBaseline(order: string[]): string | undefined {
  if (order.length < 2) return order[0];
  return order[1];
}

/**
 * Each run's title where the compared runs are told apart: {@link runTitle}, then, for runs whose titles are the
 * same, the server's name, and if that is the same too, the run id ("penguins on workbench-latest · Reference
 * server (embedded)").
 */
export function distinctTitles(
  runs: { id: string; name?: string | null; dataset: string; model: string; serverName: string }[],
): Map<string, string> {
  const tally = (xs: string[]) => {
    const n = new Map<string, number>();
    for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
    return n;
  };
  let titles = runs.map((r) => runTitle(r));
  const once = tally(titles);
  titles = titles.map((t, i) => ((once.get(t) ?? 0) > 1 ? `${t} · ${runs[i].serverName}` : t));
  const twice = tally(titles);
  titles = titles.map((t, i) => ((twice.get(t) ?? 0) > 1 ? `${t} · ${runs[i].id}` : t));
  return new Map(runs.map((r, i) => [r.id, titles[i]]));
}

/** How a run is called: the name people gave it, else its dataset and model ("penguins on workbench-latest"). */
export function runTitle(r: { name?: string | null; dataset: string; model: string }): string {
  const name = r.name?.trim();
  return name ? name : `${r.dataset} on ${r.model}`;
}

/** One delta against the baseline: this run's value minus the baseline's. */
interface DeltaCell {
  vs: string;
  delta: MaybeCI;
  /** The change with its interval: "+27.6 pp (+20.1 pp to +35.0 pp)". */
  text: string;
  /** The change in words, new vs baseline: "+27.6 pp vs baseline, worse" or "−0.4 pp vs baseline, no clear change". */
  words: string;
  /** The change's interval: "+20.1 pp to +35.0 pp", or "" when it was not resampled. */
  range: string;
  /** The interval excludes zero. */
  significant: boolean;
  /** Better / worse for the metric's direction when significant, else "same". */
  verdict: "better" | "worse" | "same";
}

/** One metric row. */
export interface CompareRow {
  name: string;
  label: string;
  unit: Unit;
  values: string[];
  /** deltas[i] compares run i (i >= 1) with the baseline (run 0, its `vs`); deltas[0] is null. */
  deltas: (DeltaCell | null)[];
}

/**
 * Rows of the comparison table. A delta goes under its `run` and is that run minus the baseline (the API's first
 * run), so its sign and its better/worse verdict read "new vs baseline"; it is significant when its interval
 * excludes zero.
 */
export function compareRows(c: Comparison): CompareRow[] {
  return c.metrics.map((m) => {
    const info = metricInfo(m.name);
    const deltas: (DeltaCell | null)[] = c.runs.map(() => null);
    for (const d of m.deltas) {
      const [point, lo, hi] = d.delta;
      const significant = lo !== null && hi !== null && (lo > 0 || hi < 0);
      const up = point > 0;
      const verdict = !significant ? "same" : up === (info.better === "higher") ? "better" : "worse";
      const range =
        lo !== null && hi !== null ? `${formatDelta(lo, info.unit)} to ${formatDelta(hi, info.unit)}` : "";
      const text = `${formatDelta(point, info.unit)}${range ? ` (${range})` : ""}`;
      const words = `${formatDelta(point, info.unit)} vs baseline, ${verdict === "same" ? "no clear change" : verdict}`;
      const at = c.runs.findIndex((r) => r.id === d.run);
      if (at > 0) deltas[at] = { vs: d.vs, delta: d.delta, text, words, range, significant, verdict };
    }
    return {
      name: m.name,
      label: info.label,
      unit: info.unit,
      values: m.values.map((v) => formatCI(v, info.unit)),
      deltas,
    };
  });
}

/** The models that answered a run; a run whose replies named no other model was served by the one asked for. */
export function servedBy(r: { model: string; servedBy: string[] }): string[] {
  return r.servedBy.length ? r.servedBy : [r.model];
}

/**
 * The served-model banner text, or null when every run was served by the same model(s); a run with a title in
 * `titles` is named by it: "before the swap (run_a asked for m and was served by bayes-2)".
 */
export function servedModelBanner(c: Comparison, titles?: Map<string, string>): string | null {
  if (!c.servedModelDiffers) return null;
  const parts = c.runs.map((r) => {
    const said = `${r.id} asked for ${r.model} and was served by ${servedBy(r).join(" + ")}`;
    const title = titles?.get(r.id);
    return title ? `${title} (${said})` : said;
  });
  return `The served model differs between these runs: ${parts.join("; ")}. Differences below may come from the service swapping its weights, not from the data.`;
}

/** Whether the runs have the same served-model set (used for run lists before a comparison is fetched). */
export function sameServedModels(a: string[], b: string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Flipped answers shown on one page. */
export const FLIPS_PAGE = 25;

/** The page of flipped answers shown: "1–25 of 192"; "0 of 0" when none flipped. */
export function pageText(offset: number, shown: number, total: number): string {
  const f = (x: number) => x.toLocaleString("en-US");
  if (total === 0 || shown === 0) return `0 of ${f(total)}`;
  return `${f(offset + 1)}–${f(offset + shown)} of ${f(total)}`;
}

/**
 * The address of an example's detail in a run: its Items tab listing every answer of the item and split (filter
 * all), at the page that holds the example's position, with the example selected.
 */
export function exampleLink(
  runId: string,
  p: { item: string; split: string; exampleId: string; position?: number },
): string {
  const q = new URLSearchParams({ tab: "items", item: p.item, split: p.split, filter: "all" });
  const offset =
    p.position === undefined ? 0 : Math.floor(p.position / ITEMS_PAGE.default) * ITEMS_PAGE.default;
  if (offset > 0) q.set("offset", String(offset));
  q.set("example", p.exampleId);
  return `/runs/${encodeURIComponent(runId)}?${q.toString()}`;
}
