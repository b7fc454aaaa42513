/** Multi-label thresholds: per-label P/R/F1 against the threshold, 0.5 and the tuned one, micro / macro F1. */
import { useReport } from "../../api/runs";
import { ThresholdCurves } from "../../charts/ThresholdCurves";
import { RateText } from "../../components/CiText";
import { Metric } from "../../components/MetricCards";
import { ScrollRegion } from "../../components/ScrollRegion";
import { Empty, ErrorState, Loading } from "../../components/States";
import { formatDelta, pct } from "../../transforms/format";
import { thresholdTable } from "../../transforms/thresholds";
import type { TabProps } from "../RunPage";

/** The tab. */
export default function ThresholdsTab({ run, item, split }: TabProps) {
  const multi = item?.kind === "multi";
  const report = useReport(run.id, { item: item?.name, split }, multi);
  if (!multi)
    return (
      <Empty title={`${item?.name ?? "This item"} is not multi-label`}>
        Per-label thresholds apply to multi-label items (several options can be true at once). Pick a
        multi-label item above, if the dataset has one; for one-answer items the escalation threshold is on
        the Unknowns tab.
      </Empty>
    );
  if (report.error && !report.data) return <ErrorState error={report.error} retry={() => report.refetch()} />;
  if (!report.data) return <Loading label="Aggregating the run…" />;
  const r = report.data;
  if (!r.thresholds?.length)
    return <Empty title="No threshold curves">The API gave no per-label curves for this item.</Empty>;
  const rows = thresholdTable(r.thresholds);
  const rates = new Map(r.perOption.map((o) => [o.option, o.rates]));
  return (
    <>
      <div className="metrics">
        {r.metrics?.microF1 && (
          <Metric
            label="Micro F1"
            ci={r.metrics.microF1}
            unit="percent"
            help="F1 over every label decision pooled."
          />
        )}
        {r.metrics?.macroF1 && (
          <Metric
            label="Macro F1"
            ci={r.metrics.macroF1}
            unit="percent"
            help="Mean of the per-label F1 scores."
          />
        )}
      </div>
      <p className="muted small">
        Precision and recall at 0.5 show x of n with a 95% Wilson interval. The tuned threshold is chosen on
        these same rows, so its F1 here is optimistic; “unseen rows” is the F1 of thresholds tuned on four
        fifths of the rows and applied to the fifth left out (5-fold cross-validation), what tuning buys on
        new data. The Calibrate page chooses thresholds on the fit split and reports them on the evaluation
        split.
      </p>
      <ScrollRegion label="Per-label thresholds">
        <table className="table">
          <caption>Per-label thresholds (chosen to maximise F1), the labels that gain most first</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col" className="num">
                Precision at 0.5
              </th>
              <th scope="col" className="num">
                Recall at 0.5
              </th>
              <th scope="col" className="num">
                F1 at 0.5
              </th>
              <th scope="col" className="num">
                Tuned threshold
              </th>
              <th scope="col" className="num">
                F1 tuned, these rows
              </th>
              <th scope="col" className="num">
                F1 tuned, unseen rows
              </th>
              <th scope="col" className="num">
                Gain on unseen rows
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={s.label}>
                <th scope="row">{s.label}</th>
                <td className="num">
                  <RateText rate={rates.get(s.label)?.precision} />
                </td>
                <td className="num">
                  <RateText rate={rates.get(s.label)?.recall} />
                </td>
                <td className="num">{pct(s.f1At05)}</td>
                <td className="num">{s.tuned === null ? "—" : (s.tuned / 100).toFixed(2)}</td>
                <td className="num">{pct(s.f1Tuned)}</td>
                <td className="num">{pct(s.f1HeldOut)}</td>
                <td className="num">
                  {s.gainHeldOut === null ? "—" : formatDelta(s.gainHeldOut, "percent")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <ThresholdCurves series={rows} ready="thresholds" />
    </>
  );
}
