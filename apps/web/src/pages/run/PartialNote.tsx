/** The "partial: N of M examples" marks of a run's figures: a badge beside a number, a line above the charts. */

import type { PartialMark } from "../../transforms/progress";

/** A small badge beside a headline figure ("partial"), its full text for assistive technology and tooltips. */
export function PartialBadge({ mark }: { mark: PartialMark }) {
  return (
    <span className="partial-badge" title={`${mark.text}: ${mark.reason}`}>
      partial<span className="visually-hidden">: {mark.text.replace(/^partial: /, "")}</span>
    </span>
  );
}

/**
 * One line saying the figures below cover only the examples answered so far, and why; announced politely as it
 * changes (role="status").
 */
export function PartialNote({ mark, live }: { mark: PartialMark; live: boolean }) {
  return (
    <p className="partial-note" role="status" data-testid="partial-note">
      <strong>{mark.text[0].toUpperCase() + mark.text.slice(1)}</strong>{" "}
      <span>
        — {mark.reason}
        {live
          ? "; the figures refresh every few seconds and may still move."
          : `; the figures cover only the answered examples, not the whole run.`}
      </span>
    </p>
  );
}
