/** Multi-label items: each label's threshold (chosen on the fit split) with n and its F1 where it is reported. */
import type { Calibration } from "../../api/types";
import { CiText } from "../../components/CiText";

export function LabelThresholds({ cal, item }: { cal: Calibration; item: string }) {
  const rows = cal.file.questions[item]?.label_thresholds;
  if (!rows?.length) return null;
  const where =
    cal.fit?.estimatedBy === "cross-fit"
      ? `cross-fit estimates on ${cal.fit.fitSplit}`
      : `the ${cal.fit?.evalSplit ?? cal.file.source.eval_split} split`;
  return (
    <div className="table-scroll">
      <table className="table compact">
        <caption>
          Per-label thresholds, chosen on out-of-fold {cal.fit?.fitSplit ?? cal.file.source.fit_split}{" "}
          probabilities; F1 on {where} (95% bootstrap intervals)
        </caption>
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col" className="num">
              Threshold
            </th>
            <th scope="col" className="num">
              n
            </th>
            <th scope="col">F1</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.label}>
              <th scope="row">{r.label}</th>
              <td className="num">{r.threshold.toFixed(3)}</td>
              <td className="num">{r.n}</td>
              <td>
                <CiText ci={r.f1} unit="number" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
