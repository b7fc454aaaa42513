/**
 * Multi-label items: each label's threshold (chosen on the fit split) with n and its F1 where it is reported, and the
 * label's calibration there before and after (ECE with its bias-aware interval, NLL).
 */
import type { Calibration } from "@decision-workbench/api/shapes";
import { CiText } from "../../components/CiText";
import { ScrollRegion } from "../../components/ScrollRegion";
import { sig } from "../../transforms/format";

export function LabelThresholds({ cal, item }: { cal: Calibration; item: string }) {
  const q = cal.file.questions[item];
  const thresholds = q?.label_thresholds ?? [];
  const metrics = q?.label_metrics ?? [];
  if (thresholds.length === 0 && metrics.length === 0) return null;
  const labels = [...thresholds.map((t) => t.label)];
  for (const m of metrics) if (!labels.includes(m.label)) labels.push(m.label);
  const crossFit = (q.metrics?.estimated_by ?? cal.fit?.estimatedBy) === "cross-fit";
  const where = crossFit
    ? `cross-fit estimates on ${cal.fit?.fitSplit ?? cal.file.source.fit_split}`
    : `the ${cal.fit?.evalSplit ?? cal.file.source.eval_split} split`;
  const hasMetrics = metrics.length > 0;
  const hasThresholds = thresholds.length > 0;
  // the caption stays short (a table's caption is as wide as the table, cut off on a phone); the details wrap above
  return (
    <>
      <p className="muted small">
        {hasThresholds
          ? `Thresholds chosen on out-of-fold ${cal.fit?.fitSplit ?? cal.file.source.fit_split} probabilities; `
          : ""}
        {hasThresholds && hasMetrics ? "F1 and calibration" : hasThresholds ? "F1" : "Calibration"} measured
        on {where}, each label's probability against its outcome. 95% intervals: F1 and NLL bootstrap
        percentile, ECE (equal-width) bias-corrected.
      </p>
      <ScrollRegion label="Per-label thresholds and calibration">
        <table className="table compact label-thresholds">
          <caption>
            {hasThresholds ? "Per-label thresholds and calibration" : "Per-label calibration"}
          </caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              {hasThresholds && (
                <th scope="col" className="num">
                  Threshold
                </th>
              )}
              <th scope="col" className="num">
                n
              </th>
              {hasThresholds && <th scope="col">F1</th>}
              {hasMetrics && (
                <>
                  <th scope="col">ECE before</th>
                  <th scope="col">ECE after</th>
                  <th scope="col">NLL before</th>
                  <th scope="col">NLL after</th>
                </>
              )}
            </tr>
          </thead>
          <tbody>
            {labels.map((label) => {
              const t = thresholds.find((r) => r.label === label);
              const m = metrics.find((r) => r.label === label);
              return (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  {hasThresholds && <td className="num">{t ? sig(t.threshold) : "—"}</td>}
                  <td className="num">{t?.n ?? m?.n ?? "—"}</td>
                  {hasThresholds && (
                    <td>
                      <CiText ci={t?.f1} unit="number" />
                    </td>
                  )}
                  {hasMetrics && (
                    <>
                      <td>
                        <CiText ci={m?.before.ece} unit="percent" />
                      </td>
                      <td>
                        <CiText ci={m?.after.ece} unit="percent" />
                      </td>
                      <td>
                        <CiText ci={m?.before.nll} unit="number" />
                      </td>
                      <td>
                        <CiText ci={m?.after.nll} unit="number" />
                      </td>
                    </>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollRegion>
    </>
  );
}
