/** Confidence: histogram of right vs wrong answers and every metric with its interval. */
import { ConfidenceHistogram } from "../../charts/ConfidenceHistogram";
import { HistogramScaleChoice, useHistogramScale } from "../../charts/HistogramScaleChoice";
import { ConsistencyNote, MetricCards } from "../../components/MetricCards";
import { ErrorState, Loading, NoUsable } from "../../components/States";
import { count, pct, plural } from "../../transforms/format";
import { histogramSummary } from "../../transforms/histogram";
import { intervalSummary, metricCards } from "../../transforms/metrics";
import type { TabProps } from "../RunPage";
import { useBinnedReport } from "./useBinnedReport";
import { useRunView } from "./useRunView";

/** The tab. */
export default function ConfidenceTab({ run, item, split }: TabProps) {
  const [view] = useRunView();
  const [scale, setScale] = useHistogramScale();
  const report = useBinnedReport({ run, item, split });
  if (report.error && !report.data) return <ErrorState error={report.error} retry={() => report.refetch()} />;
  if (!report.data) return <Loading label="Aggregating the run…" />;
  const r = report.data;
  if (!r.metrics) return <NoUsable report={r} />;
  const s = histogramSummary(r.histogram);
  return (
    <>
      <h2 className="visually-hidden">Metrics</h2>
      <MetricCards
        cards={metricCards(
          r.metrics,
          r.item.kind,
          r.bins.count,
          r.item.name,
          view.binning,
          r.intervals,
          r.plugin,
        )}
      />
      <ConsistencyNote consistency={r.consistency} />
      <p className="muted small">
        {plural(r.n, "decision")} on the {r.split} split: {count(r.counts.answered)} answered,{" "}
        {count(r.counts.unknown)} not stated, {count(r.counts.escalated)} escalated. 95% intervals over{" "}
        {plural(r.resamples.headline, "resample")}
        {r.resamples.classwise < r.resamples.headline
          ? ` (classwise ECE and the consistency test: ${count(r.resamples.classwise)})`
          : ""}
        : {intervalSummary(r.intervals)}.
      </p>
      <div className="toolbar">
        <HistogramScaleChoice scale={scale} onChange={setScale} />
        <span className="muted small">
          {count(s.right)} right (mean confidence {pct(s.meanRight)}) · {count(s.wrong)} wrong (mean
          confidence {pct(s.meanWrong)})
        </span>
      </div>
      <ConfidenceHistogram histogram={r.histogram} scale={scale} ready="confidence" />
    </>
  );
}
