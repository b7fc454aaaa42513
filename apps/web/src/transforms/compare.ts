/** Comparison of runs: metric rows with paired deltas, the served-model banner, flipped items. */

import type { Comparison, MaybeCI } from "@decision-workbench/api/shapes";
import { formatCI, formatDelta, type Unit } from "./format";
import { metricInfo } from "./metrics";

/** One delta against another run. */
interface DeltaCell {
  vs: string;
  delta: MaybeCI;
  text: string;
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
  /** deltas[i] compares run i (i >= 1) with its `vs` run; deltas[0] is null. */
  deltas: (DeltaCell | null)[];
}

/**
 * Rows of the comparison table. A delta goes under its `run`; it is significant when its interval excludes zero.
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
        lo !== null && hi !== null ? ` (${formatDelta(lo, info.unit)} to ${formatDelta(hi, info.unit)})` : "";
      const text = `${formatDelta(point, info.unit)}${range}`;
      const at = c.runs.findIndex((r) => r.id === d.run);
      if (at > 0) deltas[at] = { vs: d.vs, delta: d.delta, text, significant, verdict };
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

/** The served-model banner text, or null when every run was served by the same model(s). */
export function servedModelBanner(c: Comparison): string | null {
  if (!c.servedModelDiffers) return null;
  const parts = c.runs.map(
    (r) => `${r.id} asked for ${r.model} and was served by ${servedBy(r).join(" + ")}`,
  );
  return `The served model differs between these runs: ${parts.join("; ")}. Differences below may come from the service swapping its weights, not from the data.`;
}

/** Whether the runs have the same served-model set (used for run lists before a comparison is fetched). */
export function sameServedModels(a: string[], b: string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
