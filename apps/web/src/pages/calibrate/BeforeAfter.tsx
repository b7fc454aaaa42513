/** An item's metrics before and after the chosen calibrator, side by side, where they were measured. */
import type { Calibration } from "@decision-workbench/api/shapes";
import { CiText } from "../../components/CiText";
import { ScrollRegion } from "../../components/ScrollRegion";

const ROWS: { key: string; label: string; unit: "percent" | "number" }[] = [
  { key: "ece", label: "ECE (equal-width)", unit: "percent" },
  { key: "ece_mass", label: "ECE (equal-mass)", unit: "percent" },
  { key: "mce", label: "MCE", unit: "percent" },
  { key: "nll", label: "NLL", unit: "number" },
  { key: "brier", label: "Brier", unit: "number" },
  { key: "accuracy", label: "Accuracy", unit: "percent" },
  { key: "answered_error", label: "Answered-alone error", unit: "percent" },
];

export function BeforeAfter({ cal, item }: { cal: Calibration; item: string }) {
  const m = cal.file.questions[item]?.metrics;
  if (!m?.before || !m.after) return null;
  const before = m.before;
  const after = m.after;
  const rows = ROWS.filter((r) => before[r.key] || after[r.key]);
  const crossFit = (m.estimated_by ?? cal.fit?.estimatedBy) === "cross-fit";
  const where = crossFit
    ? `out-of-fold cross-fit estimates on ${cal.fit?.fitSplit ?? cal.file.source.fit_split}, not untouched held-out data`
    : `measured once on ${cal.fit?.evalSplit ?? cal.file.source.eval_split}, which the choice never read`;
  return (
    <ScrollRegion label="Before and after">
      <table className="table compact before-after">
        <caption>
          Before and after {cal.file.questions[item].method}: {where}
          {cal.fit?.n[item] ? ` (n = ${cal.fit.n[item].eval})` : ""}
        </caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              <td>
                <CiText ci={before[r.key]} unit={r.unit} />
              </td>
              <td>
                <CiText ci={after[r.key]} unit={r.unit} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
