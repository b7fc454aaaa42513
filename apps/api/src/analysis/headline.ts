import { EceSums, type TopLabel } from "@decision-workbench/calibration";
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

/** The headline of the given top-label views, pooled. */
export function headlineOf(tops: readonly TopLabel[]): Headline {
  const sums = new TopSums();
  for (const top of tops) sums.addTop(top);
  return sums.headline();
}

/**
 * Top-label accuracy and ECE (15 equal-width bins) gathered part by part (storage `eachItemPart`), in a few hundred
 * bytes whatever the row count: hits, rows and the ECE's per-bin sums (EceSums). The headline is the same whatever
 * order the parts come in (chunks, loose rows, the order workers stored them in).
 */
export class TopSums {
  private hits = 0;
  private readonly ece = new EceSums(15);

  /** One part's usable rows of one item. */
  add(spec: ItemSpec, part: ItemColumns): void {
    this.addTop(topView(itemDataOf(spec, part)));
  }

  addTop(top: TopLabel): void {
    this.ece.add(top);
    for (let i = 0; i < top.y.length; i++) this.hits += top.y[i];
  }

  /** Adds what another holds (this one changes, the other does not). */
  merge(other: TopSums): this {
    this.ece.merge(other.ece);
    this.hits += other.hits;
    return this;
  }

  /** Rows added so far. */
  get size(): number {
    return this.ece.n;
  }

  headline(): Headline {
    const n = this.ece.n;
    if (n === 0) return { accuracy: null, ece: null, n: 0 };
    return { accuracy: this.hits / n, ece: this.ece.value(), n };
  }
}
