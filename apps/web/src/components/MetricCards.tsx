/** Metric cards: a value with its bootstrap interval, a label and what it means. */
import type { CI } from "../api/types";
import { formatInterval, formatValue, type Unit } from "../transforms/format";
import type { MetricCard } from "../transforms/metrics";

/** One card. */
export function Metric({
  label,
  ci,
  unit,
  help,
  value,
}: {
  label: string;
  ci?: CI;
  unit: Unit;
  help?: string;
  value?: string;
}) {
  return (
    <div className="metric" title={help}>
      <div className="metric-label">{label}</div>
      <div className="metric-value">{value ?? (ci ? formatValue(ci[0], unit) : "—")}</div>
      {ci && formatInterval(ci, unit) && <div className="metric-ci">95% CI {formatInterval(ci, unit)}</div>}
      {help && <div className="visually-hidden">{help}</div>}
    </div>
  );
}

/** A grid of cards. */
export function MetricCards({ cards }: { cards: MetricCard[] }) {
  return (
    <div className="metrics">
      {cards.map((c) => (
        <Metric key={c.key} label={c.label} ci={c.ci} unit={c.unit} help={c.help} />
      ))}
    </div>
  );
}
