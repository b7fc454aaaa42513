import { ece, type TopLabel } from "@decision-workbench/calibration";
import type { Split } from "@decision-workbench/datasets";
import type { AnalysisRow } from "../storage/types.js";
import { groupByItem, type ItemSpec, inferSpec } from "./item-spec.js";
import { ItemDataBuilder, itemData } from "./matrix.js";
import { topView } from "./views.js";

/**
 * A run's headline numbers: top-label accuracy and the plain (plug-in) ECE, over `n` usable rows (absent from headlines
 * stored before it was kept). The plain ECE is biased upward; a report gives its bias-corrected value and interval.
 */
export interface Headline {
  accuracy: number | null;
  ece: number | null;
  n?: number;
}

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

/** Examples a tally converts at a time. */
export const TALLY_BATCH = 1024;

/**
 * A run's headline kept as its answers are stored, so a running run's costs no read and a finished run's is ready
 * at once (reading its rows back took 40-70 ms of 10,000 examples' end). Each item's rows on the headline's splits
 * are converted a batch at a time and only their top-label pairs are kept: the top-label view of a row depends on
 * that row alone, so the pooled batches give the headline of all the rows read back (ECE to within rounding: it
 * sums in another order).
 */
export class HeadlineTally {
  private readonly builders = new Map<string, ItemDataBuilder>();
  private readonly tops: TopLabel[] = [];
  private pending = 0;
  private last: Headline | null = null;

  /** `splits`: the headline's splits (null: all). */
  constructor(
    private readonly specs: readonly ItemSpec[],
    private readonly splits: readonly Split[] | null,
  ) {
    for (const spec of specs) this.builders.set(spec.name, new ItemDataBuilder(spec));
  }

  /** Adds one stored example's rows (one per item). */
  add(split: Split, rows: readonly AnalysisRow[]): void {
    if (this.splits && !this.splits.includes(split)) return;
    for (const r of rows) this.builders.get(r.item)?.add(r);
    this.last = null;
    if (++this.pending >= TALLY_BATCH) this.flush();
  }

  /** The headline of every example added so far (computed again only after an example was added). */
  value(): Headline {
    if (!this.last) {
      this.flush();
      this.last = headlineOf(this.tops);
    }
    return this.last;
  }

  private flush(): void {
    if (this.pending === 0) return;
    for (const spec of this.specs) {
      const builder = this.builders.get(spec.name) as ItemDataBuilder;
      this.tops.push(topView(builder.finish()));
      this.builders.set(spec.name, new ItemDataBuilder(spec));
    }
    this.pending = 0;
  }
}
