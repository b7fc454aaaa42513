import { itemOptionNames } from "./task.js";
import type { Dataset, Split } from "./types.js";
import { NOT_STATED, SPLITS } from "./types.js";

/** How many examples of each split carry one label of one item. */
export interface LabelCount {
  item: string;
  /** An option name, "not stated", "(none)" for an empty multi-label list, or "(unlabelled)". */
  label: string;
  counts: Record<Split, number>;
  total: number;
}

/**
 * Label counts per split for every item, in option order. A multi-label example counts once under each
 * option it lists (so rows of a multi item can sum to more than the examples), or under "(none)".
 */
export function labelCounts(dataset: Pick<Dataset, "task" | "examples">): LabelCount[] {
  const rows: LabelCount[] = [];
  for (const item of dataset.task.items) {
    const names = itemOptionNames(item);
    const extra = [item.notStated ? NOT_STATED : "", item.kind === "multi" ? "(none)" : "", "(unlabelled)"];
    const byLabel = new Map<string, LabelCount>();
    for (const label of [...names, ...extra.filter((x) => x !== "")])
      byLabel.set(label, { item: item.name, label, counts: { train: 0, calibration: 0, test: 0 }, total: 0 });
    const bump = (label: string, split: Split) => {
      const row = byLabel.get(label);
      if (!row) return;
      row.counts[split]++;
      row.total++;
    };
    for (const e of dataset.examples) {
      const v = e.labels[item.name];
      if (v === undefined) bump("(unlabelled)", e.split);
      else if (Array.isArray(v)) {
        if (v.length === 0) bump("(none)", e.split);
        for (const o of v) bump(o, e.split);
      } else bump(v, e.split);
    }
    for (const row of byLabel.values()) if (row.total > 0 || names.includes(row.label)) rows.push(row);
  }
  return rows;
}

/**
 * The label counts as a Markdown table (item, label, one column per split, total) ending with the example
 * count, its columns padded the way Markdown formatters align them (text left, numbers right).
 */
export function labelCountsMarkdown(dataset: Pick<Dataset, "task" | "examples">): string {
  const rows: string[][] = [["item", "label", ...SPLITS, "total"]];
  for (const r of labelCounts(dataset))
    rows.push([r.item, r.label, ...SPLITS.map((s) => String(r.counts[s])), String(r.total)]);
  const per = SPLITS.map((s) => String(dataset.examples.filter((e) => e.split === s).length));
  rows.push(["**examples**", "", ...per, String(dataset.examples.length)]);
  const widths = rows[0].map((_, c) => Math.max(3, ...rows.map((row) => row[c].length)));
  const right = (c: number) => c >= 2;
  const line = (row: string[]) =>
    `| ${row.map((cell, c) => (right(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join(" | ")} |`;
  const rule = `| ${widths.map((w, c) => (right(c) ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`;
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join("\n");
}
