/**
 * A chart's frame: title, one-line description, the chart as one named image, controls, a legend, and the chart's
 * data as a table behind a "Data table" button, which is what a screen reader or keyboard user reads instead of
 * the picture.
 */
import { type ReactNode, useId } from "react";
import { ScrollRegion } from "../components/ScrollRegion";

/** One legend entry. */
export interface LegendEntry {
  label: string;
  color: string;
  shape?: "dot" | "line" | "dash" | "box";
}

/**
 * Props every Recharts chart of the workbench takes: no keyboard "accessibility layer", whose svg has
 * role="application" and no name; the chart is an image named by its frame, and its numbers are in the data table.
 */
export const CHART_SVG = { accessibilityLayer: false } as const;

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

/** A chart's data under a "Data table" disclosure button; `title` names the chart for screen readers. */
export function ChartTable({ id, title, children }: { id?: string; title: string; children: ReactNode }) {
  return (
    <details className="chart-table" id={id}>
      {/* The title is in the label, not the text, so a page's text search finds each title once. */}
      <summary aria-label={`Data table of ${title}`}>Data table</summary>
      <ScrollRegion label={`Data table of ${title}`}>{children}</ScrollRegion>
    </details>
  );
}

/** The name a chart image is read by: its title, what it shows in a sentence, and where its numbers are. */
export function chartName(title: string, summary?: string, table = true): string {
  const what = summary ? `${title}: ${summary.replace(/\.$/, "")}.` : `${title}.`;
  return table ? `${what} The numbers are in the data table below.` : what;
}

/** The frame; `table` is shown under a "Data table" disclosure, `controls` between the chart and its legend. */
export function ChartFrame({
  title,
  description,
  summary,
  legend,
  table,
  controls,
  children,
  ready,
}: {
  title: string;
  description?: ReactNode;
  /** What the chart shows, in one sentence with its key numbers (part of the image's accessible name). */
  summary?: string;
  legend?: LegendEntry[];
  table?: ReactNode;
  /** Interactive parts (sliders, read-outs): outside the image, so they stay reachable. */
  controls?: ReactNode;
  children: ReactNode;
  /** Marks the chart as drawn (used by the render benchmark and the end-to-end test). */
  ready?: string;
}) {
  const id = useId();
  return (
    <figure className="chart" data-ready={ready} aria-labelledby={`${id}-title`}>
      <figcaption>
        <span className="chart-title" id={`${id}-title`}>
          {title}
        </span>
        {description && <span className="chart-description">{description}</span>}
      </figcaption>
      <div
        className="chart-body"
        role="img"
        aria-label={chartName(title, summary, !!table)}
        aria-details={table ? `${id}-table` : undefined}
      >
        {children}
      </div>
      {controls}
      {legend && <ChartLegend entries={legend} />}
      {table && (
        <ChartTable id={`${id}-table`} title={title}>
          {table}
        </ChartTable>
      )}
    </figure>
  );
}
