/**
 * How an item's numbers were obtained, in words: where it was fitted, how the method was selected (with the verdict,
 * e.g. "indistinguishable"), where it was evaluated, what a one-split fit costs, and every warning, visibly.
 */
import type { Calibration } from "@decision-workbench/api/shapes";
import { answeredSentence, provenance, VERDICT_LABELS } from "../../transforms/calibrate";

export function SelectionSummary({ cal, item }: { cal: Calibration; item: string }) {
  const where = provenance(cal, item);
  const s = cal.selection?.[item];
  const warnings = cal.warnings?.[item] ?? cal.file.questions[item]?.warnings ?? [];
  const fileSelection = cal.file.questions[item]?.selection;
  const verdict = s?.verdict ?? fileSelection?.verdict;
  const note = s?.note ?? fileSelection?.note;
  const answered = answeredSentence(cal, item);
  return (
    <div className="selection-summary" data-testid="selection-summary">
      {where && <p className="provenance">{where[0].toUpperCase() + where.slice(1)}.</p>}
      {!where && (
        <p className="provenance muted">
          Imported file: fitted on {cal.file.source.fit_split}, reported on {cal.file.source.eval_split}.
        </p>
      )}
      {verdict && (
        <p className="selection-verdict">
          <span className={`badge verdict verdict-${verdict}`}>{VERDICT_LABELS[verdict] ?? verdict}</span>{" "}
          <span>{note}</span>
        </p>
      )}
      {answered && <p className="answered-alone">{answered}</p>}
      {cal.fit?.caveat && (
        <p className="banner banner-info" role="note">
          {cal.fit.caveat}
        </p>
      )}
      {warnings.length > 0 && (
        <div className="banner banner-warning" role="alert">
          <strong>{warnings.length === 1 ? "Warning" : `${warnings.length} warnings`}</strong>
          <ul className="warning-list">
            {warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
