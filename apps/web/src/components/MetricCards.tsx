/** Metric cards: a value with its interval (or a rate with its count), a label and what it means. */
import type { Consistency, MaybeCI, Rate } from "@decision-workbench/api/shapes";
import { formatInterval, formatValue, pct, rateCount, rateInterval, type Unit } from "../transforms/format";
import { consistencyVerdict, type MetricCard } from "../transforms/metrics";

/** One card: `ci` a metric with its interval, or `rate` a share with its count and Wilson interval. */
export function Metric({
  label,
  ci,
  rate,
  unit,
  help,
  value,
  method,
  note,
}: {
  label: string;
  ci?: MaybeCI;
  rate?: Rate;
  unit: Unit;
  help?: string;
  value?: string;
  /** How the interval was obtained (shown in the tooltip). */
  method?: string;
  /** One more short line under the interval (e.g. the plain value of a bias-corrected estimate). */
  note?: string;
}) {
  const interval = ci ? formatInterval(ci, unit) : rate ? rateInterval(rate) : "";
  const shown = value ?? (ci ? formatValue(ci[0], unit) : rate ? pct(rate.value) : "—");
  const title = [help, interval && method ? `95% interval: ${method}.` : ""].filter(Boolean).join(" ");
  return (
    <div className="metric" title={title || undefined}>
      <div className="metric-label">{label}</div>
      <div className="metric-value">{shown}</div>
      {rate && (
        <div className="metric-ci">
          <span className="rate-n">{rateCount(rate)}</span>
          {interval && ` · 95% CI ${interval}`}
        </div>
      )}
      {ci && interval && <div className="metric-ci">95% CI {interval}</div>}
      {note && <div className="metric-ci">{note}</div>}
      {help && <div className="visually-hidden">{help}</div>}
    </div>
  );
}

/** A grid of cards. */
export function MetricCards({ cards }: { cards: MetricCard[] }) {
  return (
    <div className="metrics">
      {cards.map((c) => (
        <Metric
          key={c.key}
          label={c.label}
          ci={c.ci}
          unit={c.unit}
          help={c.help}
          method={c.method}
          note={c.note}
        />
      ))}
    </div>
  );
}

/** The consistency test's verdict, one line under the metrics ("Consistent with perfect calibration: p = 0.41 …"). */
export function ConsistencyNote({ consistency }: { consistency: Consistency | undefined }) {
  if (!consistency) return null;
  const v = consistencyVerdict(consistency);
  return (
    <p className={`consistency consistency-${v.verdict}`} data-testid="consistency">
      <strong>{v.text}</strong> <span className="muted small">({v.how}; top-label ECE)</span>
    </p>
  );
}
