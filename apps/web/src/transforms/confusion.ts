/** Confusion matrix as a table with row shares, and the per-option precision / recall / F1. */

import type { ItemReport, OptionReport } from "@decision-workbench/api/shapes";

/** One cell: gold row x predicted column. */
export interface ConfusionCell {
  predicted: string;
  count: number;
  /** Share of the gold row (0 for an empty row). */
  rowShare: number;
  diagonal: boolean;
}

/** The table. */
export interface ConfusionTable {
  labels: string[];
  rows: { gold: string; total: number; cells: ConfusionCell[]; recall: number }[];
  columnTotals: number[];
  n: number;
  /** Share of all items on the diagonal. */
  accuracy: number;
}

/** Builds the table; throws when the matrix does not match its labels. */
export function confusionTable(c: NonNullable<ItemReport["confusion"]>): ConfusionTable {
  const k = c.labels.length;
  if (c.matrix.length !== k || c.matrix.some((r) => r.length !== k)) {
    throw new Error(`confusion matrix must be ${k} x ${k} to match its ${k} labels`);
  }
  const columnTotals = c.labels.map((_, j) => c.matrix.reduce((s, r) => s + r[j], 0));
  let n = 0;
  let diag = 0;
  const rows = c.labels.map((gold, i) => {
    const row = c.matrix[i];
    const total = row.reduce((s, x) => s + x, 0);
    n += total;
    diag += row[i];
    return {
      gold,
      total,
      recall: total ? row[i] / total : Number.NaN,
      cells: row.map((count, j) => ({
        predicted: c.labels[j],
        count,
        rowShare: total ? count / total : 0,
        diagonal: i === j,
      })),
    };
  });
  return { labels: c.labels, rows, columnTotals, n, accuracy: n ? diag / n : Number.NaN };
}

/** Background colour of a cell: blue on the diagonal, orange off it, stronger with the row share. */
export function cellColor(cell: ConfusionCell): string {
  const a = Math.round(Math.min(1, Math.max(0, cell.rowShare)) * 85) / 100;
  return cell.diagonal ? `rgba(0, 114, 178, ${a})` : `rgba(213, 94, 0, ${a})`;
}

/** Per-option rows, worst F1 first, then macro averages. */
export function perOptionTable(options: OptionReport[]): {
  rows: OptionReport[];
  macro: { precision: number; recall: number; f1: number };
  support: number;
} {
  const rows = [...options].sort((a, b) => a.f1 - b.f1 || a.option.localeCompare(b.option));
  const k = options.length || 1;
  const mean = (f: (o: OptionReport) => number) => options.reduce((s, o) => s + f(o), 0) / k;
  return {
    rows,
    macro: { precision: mean((o) => o.precision), recall: mean((o) => o.recall), f1: mean((o) => o.f1) },
    support: options.reduce((s, o) => s + o.support, 0),
  };
}
