import { ece, type TopLabel } from "@decision-workbench/calibration";
import type { RunSummary } from "../shapes/runs.js";
import type { ItemColumns } from "../storage/item-columns.js";
import type { AnalysisRow } from "../storage/types.js";
import type { ItemSpec } from "./item-spec.js";
import { groupByItem, inferSpec } from "./item-spec.js";
import { itemData, itemDataOf } from "./matrix.js";
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

/**
 * One item's top-label view built part by part (storage `eachItemPart`): each part's usable rows with their
 * ordinals, put in run order at the end, so that the result is the view of the whole item's columns, value for value.
 */
export class TopInRunOrder {
  private n = 0;
  private ordinal = new Int32Array(1024);
  private p = new Float64Array(1024);
  private y = new Uint8Array(1024);

  add(spec: ItemSpec, part: ItemColumns): void {
    const d = itemDataOf(spec, part);
    const top = topView(d);
    this.room(this.n + top.p.length);
    for (let i = 0; i < top.p.length; i++) {
      this.ordinal[this.n] = part.ordinal[d.rowOf[i]];
      this.p[this.n] = top.p[i];
      this.y[this.n] = top.y[i];
      this.n++;
    }
  }

  /** Rows added so far. */
  get size(): number {
    return this.n;
  }

  /** The view of these rows and those of `also`, in run order (neither is changed). */
  done(also?: TopInRunOrder): TopLabel {
    const b = also ?? new TopInRunOrder();
    const n = this.n + b.n;
    const ordinal = (k: number) => (k < this.n ? this.ordinal[k] : b.ordinal[k - this.n]);
    const order = Int32Array.from({ length: n }, (_, k) => k).sort((x, z) => ordinal(x) - ordinal(z));
    const p = Float64Array.from(order, (k) => (k < this.n ? this.p[k] : b.p[k - this.n]));
    const y = Uint8Array.from(order, (k) => (k < this.n ? this.y[k] : b.y[k - this.n]));
    return { p, y };
  }

  private room(size: number): void {
    if (size <= this.ordinal.length) return;
    const grown = Math.max(size, this.ordinal.length * 2);
    const grow = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(grown);
      b.set(a);
      return b;
    };
    this.ordinal = grow(this.ordinal, (k) => new Int32Array(k));
    this.p = grow(this.p, (k) => new Float64Array(k));
    this.y = grow(this.y, (k) => new Uint8Array(k));
  }
}
