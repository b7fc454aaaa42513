import { ece, type TopLabel } from "@decision-workbench/calibration";
import type { RunSummary } from "../shapes/runs.js";
import type { AnalysisRow } from "../storage/types.js";
import { groupByItem, inferSpec } from "./item-spec.js";
import { itemData } from "./matrix.js";
import { topView } from "./views.js";

/**
 * A run's headline numbers: top-label accuracy and the plain (plug-in) ECE, over `n` usable rows (absent from headlines
 * stored before it was kept). The plain ECE is biased upward; a report gives its bias-corrected value and interval.
 */
export type Headline = RunSummary["headline"];

/**
 * Top-label accuracy and ECE (15 equal-width bins) over the usable rows of all the given items: rows with an
 * output (answered, or Unknown as the `not stated` class) and a gold label; escalated and unlabelled rows are left
 * out. Null when no row is usable. Items are read from the rows themselves (no task needed).
 */
export function headlineMetrics(rows: AnalysisRow[]): Headline {
  return headlineOf(
    [...groupByItem(rows)].map(([name, itemRows]) => topView(itemData(inferSpec(name, itemRows), itemRows))),
  );
}

/** The headline of the given items' top-label views, pooled. */
export function headlineOf(tops: readonly TopLabel[]): Headline {
  const ps = tops.map((t) => t.p);
  const ys = tops.map((t) => t.y);
  const n = ps.reduce((s, p) => s + p.length, 0);
  if (n === 0) return { accuracy: null, ece: null, n: 0 };
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  let at = 0;
  let hits = 0;
  for (let j = 0; j < ps.length; j++) {
    p.set(ps[j], at);
    y.set(ys[j], at);
    at += ps[j].length;
    for (let i = 0; i < ys[j].length; i++) hits += ys[j][i];
  }
  return { accuracy: hits / n, ece: ece({ p, y }, { bins: 15 }), n };
}
