/** A chart's frame: title, one-line description, the chart, a legend, and its data as a table for screen readers. */
import type { ReactNode } from "react";

/** One legend entry. */
export interface LegendEntry {
  label: string;
  color: string;
  shape?: "dot" | "line" | "dash" | "box";
}

/** A legend (HTML, so it wraps on narrow windows and is read as a list). */
export function ChartLegend({ entries }: { entries: LegendEntry[] }) {
  return (
    <ul className="legend" aria-label="Legend">
      {entries.map((e) => (
        <li key={e.label}>
          <span
            className={`swatch swatch-${e.shape ?? "box"}`}
            style={{ "--swatch": e.color } as React.CSSProperties}
            aria-hidden="true"
          />
          {e.label}
        </li>
      ))}
    </ul>
  );
}

/** The frame; `table` is shown under a "Data table" disclosure. */
export function ChartFrame({
  title,
  description,
  legend,
  table,
  children,
  ready,
}: {
  title: string;
  description?: ReactNode;
  legend?: LegendEntry[];
  table?: ReactNode;
  children: ReactNode;
  /** Marks the chart as drawn (used by the render benchmark and the end-to-end test). */
  ready?: string;
}) {
  return (
    <figure className="chart" data-ready={ready}>
      <figcaption>
        <span className="chart-title">{title}</span>
        {description && <span className="chart-description">{description}</span>}
      </figcaption>
      <div
        className="chart-body"
        role="img"
        aria-label={`${title}. The same data is in the data table below.`}
      >
        {children}
      </div>
      {legend && <ChartLegend entries={legend} />}
      {table && (
        <details className="chart-table">
          <summary>Data table</summary>
          <div className="table-scroll">{table}</div>
        </details>
      )}
    </figure>
  );
}
