/** The Compare page's baseline choice: which run the others are measured against, and a button to swap. */

import { when } from "../transforms/format";

/** A compared run as the baseline choice shows it. */
export interface BaselineRun {
  id: string;
  title: string;
  createdAt?: string;
}

/**
 * "Baseline: <run>" as a select of the compared runs, a Swap button (the next run becomes the baseline) and what
 * the changes read: every delta is the other run's value minus the baseline's.
 */
export function CompareBaseline({
  runs,
  chosen,
  onChange,
  onSwap,
}: {
  /** The compared runs, the baseline first. */
  runs: BaselineRun[];
  /** The baseline was picked (it is in the address), not the default (the oldest run). */
  chosen: boolean;
  onChange: (id: string) => void;
  onSwap: () => void;
}) {
  const [baseline, ...others] = runs;
  if (!baseline) return null;
  const otherText =
    others.length === 1 ? (others[0]?.title ?? "") : `each of the ${others.length} other runs`;
  return (
    <section className="panel compare-baseline" aria-label="Baseline">
      <div className="compare-baseline-row">
        <label>
          <strong>Baseline:</strong>{" "}
          <select
            className="compare-baseline-select"
            value={baseline.id}
            onChange={(e) => onChange(e.target.value)}
          >
            {runs.map((r) => (
              <option key={r.id} value={r.id}>
                {r.title}
                {r.createdAt ? ` · ${when(r.createdAt)}` : ""}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="button" onClick={onSwap}>
          Swap
        </button>
      </div>
      <p className="muted small" data-testid="compare-reading">
        Changes read <strong>{otherText}</strong> vs the baseline <strong>{baseline.title}</strong> (
        {chosen ? "picked" : "the older run"}): a + means a value higher than the baseline’s.
      </p>
    </section>
  );
}
