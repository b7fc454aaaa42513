import { ece } from "@decision-workbench/calibration";
import type { PredictionRow } from "../storage/types.js";
import { groupByItem, inferSpec } from "./item-spec.js";
import { itemData } from "./matrix.js";
import { topView } from "./views.js";

/** A run's headline numbers. */
export interface Headline {
  accuracy: number | null;
  ece: number | null;
}

/**
 * Top-label accuracy and ECE (15 equal-width bins) over the usable rows of all the given items: rows with an
 * output (answered, or Unknown as the `not stated` class) and a gold label; escalated and unlabelled rows are left
 * out. Null when no row is usable. Items are read from the rows themselves (no task needed).
 */
export function headlineMetrics(rows: PredictionRow[]): Headline {
  const ps: Float64Array[] = [];
  const ys: Uint8Array[] = [];
  let n = 0;
  for (const [name, itemRows] of groupByItem(rows)) {
    const top = topView(itemData(inferSpec(name, itemRows), itemRows));
    ps.push(top.p);
    ys.push(top.y);
    n += top.p.length;
  }
  if (n === 0) return { accuracy: null, ece: null };
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
  return { accuracy: hits / n, ece: ece({ p, y }, { bins: 15 }) };
}
