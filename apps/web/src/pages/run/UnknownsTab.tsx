/** Unknowns: predicted vs gold "not stated", Unknown precision / recall, and the risk-coverage picker. */
import { useMemo, useState } from "react";
import { useReport } from "../../api/runs";
import { RiskCoverage } from "../../charts/RiskCoverage";
import { Metric } from "../../components/MetricCards";
import { ErrorState, Loading } from "../../components/States";
import { count, pct } from "../../transforms/format";
import { riskCoverageSeries, thresholdForRisk } from "../../transforms/riskCoverage";
import type { TabProps } from "../RunPage";

const TARGETS = [0.01, 0.02, 0.05, 0.1, 0.2];

/** The Unknown rates shown, each with its interval: the report's name for it, its label, what it means. */
const UNKNOWN_RATES = [
  ["predicted", "Predicted Unknown rate", "Share of decisions where “not stated” was most probable."],
  ["gold", "Gold Unknown rate", "Share of examples whose gold label is “not stated”."],
  ["precision", "Unknown precision", "Of the predicted Unknowns, the share that really are."],
  ["recall", "Unknown recall", "Of the real Unknowns, the share predicted as such."],
  [
    "riskAnswered",
    "Error of answered",
    "Error rate among decisions that were answered (not Unknown, not escalated).",
  ],
] as const;

/** The tab. */
export default function UnknownsTab({ run, item, split }: TabProps) {
  const report = useReport(run.id, { item: item?.name, split });
  const [target, setTarget] = useState(0.05);
  const [picked, setPicked] = useState<number | null>(null);
  const points = useMemo(() => riskCoverageSeries(report.data?.riskCoverage ?? []), [report.data]);
  if (report.error && !report.data) return <ErrorState error={report.error} retry={() => report.refetch()} />;
  if (!report.data) return <Loading label="Aggregating the run…" />;
  const r = report.data;
  const suggested = thresholdForRisk(points, target);
  const index = picked ?? (suggested ? points.indexOf(suggested) : 0);
  const u = r.unknown;
  // Everything a person could see: usable rows plus the ones the service escalated.
  const total = r.counts.total;
  const withShare = (n: number) => `${count(n)} (${pct(n / (total || 1))})`;
  return (
    <>
      <div className="metrics">
        <Metric label="Answered" unit="number" value={withShare(r.counts.answered)} />
        <Metric label="Not stated (Unknown)" unit="number" value={withShare(r.counts.unknown)} />
        <Metric
          label="Escalated"
          unit="number"
          value={withShare(r.counts.escalated)}
          help="No usable output: a person decides."
        />
        {u &&
          UNKNOWN_RATES.map(([key, label, help]) => (
            <Metric
              key={key}
              label={label}
              unit="percent"
              rate={u.rates[key]}
              method={r.rateInterval}
              help={help}
            />
          ))}
      </div>
      {!u && (
        <p className="muted small">
          {r.item.name} does not allow “not stated”, so there is no Unknown analysis; the escalation threshold
          below still applies.
        </p>
      )}
      {u && (
        <p className="muted small">
          Rates show x of n and a 95% Wilson interval; counts are the {count(r.n)} usable decisions of the{" "}
          {r.split} split.
        </p>
      )}
      <div className="toolbar">
        <label>
          Target risk{" "}
          <select
            value={target}
            onChange={(e) => {
              setTarget(Number(e.target.value));
              setPicked(null);
            }}
          >
            {TARGETS.map((t) => (
              <option key={t} value={t}>
                {pct(t, 0)}
              </option>
            ))}
          </select>
        </label>
        <span className="muted small">
          {suggested
            ? `Lowest threshold under ${pct(target, 0)} error: ${suggested.threshold.toFixed(2)} (answers ${suggested.coverage.toFixed(1)}% alone).`
            : `No threshold keeps the answered-alone error under ${pct(target, 0)} on this split.`}
        </span>
      </div>
      {points.length ? (
        <RiskCoverage
          points={points}
          n={total}
          index={index}
          onIndex={setPicked}
          targetRisk={target}
          aurc={r.aurc}
          usable={r.n}
          ready="unknowns"
        />
      ) : (
        <ErrorState
          error={new Error("The API gave no risk-coverage points for this item.")}
          title="No curve"
        />
      )}
    </>
  );
}
