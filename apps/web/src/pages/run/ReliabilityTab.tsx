/** Reliability: the diagram, equal-width / equal-mass switch, bin count, top-label or per-option small multiples. */

import type { OptionReport } from "@decision-workbench/api/shapes";
import { MiniReliability } from "../../charts/MiniReliability";
import { ReliabilityDiagram } from "../../charts/ReliabilityDiagram";
import { ConsistencyNote, Metric } from "../../components/MetricCards";
import { Segmented } from "../../components/Segmented";
import { Empty, ErrorState, Loading, NoUsable } from "../../components/States";
import { count, formatInterval, formatRate, pct } from "../../transforms/format";
import { binCalibrationError } from "../../transforms/reliability";
import type { TabProps } from "../RunPage";
import { useBinnedReport } from "./useBinnedReport";
import { useRunView } from "./useRunView";

const BIN_CHOICES = [5, 10, 15, 20, 30];

/** The plain (plug-in) value of a bias-corrected estimate, the one the diagram's bins show. */
function plainNote(plain: number | undefined): string | undefined {
  return plain === undefined ? undefined : `bias-corrected; ${pct(plain)} plain, as binned`;
}

/**
 * A small multiple's caption: its one-vs-rest ECE (the API's bias-corrected estimate with its interval when it gives
 * one, else the plain value of the bins shown), its counts, and its recall as x of n with the interval.
 */
export function miniSubtitle(o: OptionReport, n: number, binning: "width" | "mass"): string {
  const interval = o.ece ? formatInterval(o.ece.estimate, "percent") : "";
  const ece = o.ece
    ? `ECE ${pct(o.ece.estimate[0])} (${interval ? `${interval}, bias-corrected, ` : ""}equal-width)`
    : `ECE ${pct(binCalibrationError(o.bins).ece)} (equal-${binning})`;
  return `${ece} · gold in ${count(o.support)} of ${count(n)} · predicted ${count(o.predicted)} · recall ${formatRate(o.rates.recall)}`;
}

/** The tab. */
export default function ReliabilityTab({ run, item, split }: TabProps) {
  const [view, set] = useRunView();
  const report = useBinnedReport({ run, item, split });
  const binChoices = BIN_CHOICES.includes(view.bins)
    ? BIN_CHOICES
    : [...BIN_CHOICES, view.bins].sort((a, b) => a - b);
  const controls = (
    <div className="toolbar">
      <Segmented
        legend="Binning"
        name="binning"
        options={["width", "mass"] as const}
        value={view.binning}
        text={(b) => (b === "width" ? "Equal width" : "Equal mass")}
        onChange={(b) => set({ binning: b })}
      />
      <label>
        Bins{" "}
        <select value={view.bins} onChange={(e) => set({ bins: Number(e.target.value) })} name="bins">
          {binChoices.map((b) => (
            <option key={b} value={b}>
              {b}
            </option>
          ))}
        </select>
      </label>
      <Segmented
        legend="View"
        name="view"
        options={["top", "classwise"] as const}
        value={view.view}
        text={(v) => (v === "top" ? "Top label" : item?.kind === "multi" ? "Per label" : "Per option")}
        onChange={(v) => set({ view: v })}
      />
      {report.isFetching && report.data && (
        <span className="muted small" role="status">
          Updating…
        </span>
      )}
    </div>
  );
  if (report.error && !report.data)
    return (
      <>
        {controls}
        <ErrorState error={report.error} retry={() => report.refetch()} />
      </>
    );
  if (!report.data)
    return (
      <>
        {controls}
        <Loading label="Aggregating the run…" />
      </>
    );
  const r = report.data;
  const bins = view.binning === "mass" ? r.bins.mass : r.bins.width;
  const binned = bins.reduce((s, b) => s + b.count, 0);
  if (!r.metrics)
    return (
      <>
        {controls}
        <NoUsable report={r} />
      </>
    );
  const ece = view.binning === "mass" ? r.metrics.eceMass : r.metrics.ece;
  const mce = view.binning === "mass" ? r.metrics.mceMass : r.metrics.mce;
  const methods = r.intervals ?? {};
  return (
    <>
      {controls}
      <div className="metrics">
        <Metric
          label={`ECE (equal-${view.binning}, ${r.bins.count} bins)`}
          ci={ece}
          unit="percent"
          method={methods[view.binning === "mass" ? "eceMass" : "ece"]}
          note={plainNote(r.plugin?.[view.binning === "mass" ? "eceMass" : "ece"])}
          help="Top-label expected calibration error: mean gap between confidence and accuracy, weighted by bin size."
        />
        {view.view === "classwise" && r.metrics.classwiseEce && (
          <Metric
            label="Classwise ECE"
            ci={r.metrics.classwiseEce}
            unit="percent"
            method={methods.classwiseEce}
            help="Mean one-vs-rest ECE over the options."
          />
        )}
        <Metric
          label={`MCE (equal-${view.binning}, ${r.bins.count} bins)`}
          ci={mce}
          unit="percent"
          method={methods[view.binning === "mass" ? "mceMass" : "mce"]}
          note={plainNote(r.plugin?.[view.binning === "mass" ? "mceMass" : "mce"])}
          help={`Largest gap between confidence and accuracy over the non-empty equal-${view.binning} bins.`}
        />
        <Metric
          label={`Accuracy, ${r.item.name}`}
          ci={r.metrics.accuracy}
          unit="percent"
          method={methods.accuracy}
          help={`Share of ${r.item.name} answers equal to the gold label, ${r.split} split.`}
        />
        <Metric
          label="Answers binned"
          unit="number"
          value={`${count(r.n)} of ${count(r.counts.total)}`}
          help="Escalated decisions have no usable output and are left out."
        />
      </div>
      <ConsistencyNote consistency={r.consistency} />
      {binned === 0 ? (
        <Empty title="No usable answers on this split">
          Every decision of this item was escalated, so there is nothing to bin.
        </Empty>
      ) : view.view === "top" ? (
        <ReliabilityDiagram
          bins={bins}
          ready="reliability"
          title={`Reliability of ${r.item.name}, ${r.split} split`}
          description={`Top-label confidence in ${r.bins.count} equal-${view.binning === "width" ? "width" : "mass"} bins. Points under the diagonal are over-confident; bars are 95% intervals.`}
        />
      ) : r.perOption.length === 0 ? (
        <Empty title="No per-option data">The API gave no per-option bins for this item.</Empty>
      ) : (
        <div data-ready="reliability">
          <p className="muted">
            One-vs-rest reliability of each {item?.kind === "multi" ? "label" : "option"}: its probability
            against how often it is the gold answer.
          </p>
          <div className="multiples">
            {r.perOption.map((o) => (
              <MiniReliability
                key={o.option}
                bins={o.bins}
                title={o.option}
                subtitle={miniSubtitle(o, r.n, view.binning)}
              />
            ))}
          </div>
        </div>
      )}
    </>
  );
}
