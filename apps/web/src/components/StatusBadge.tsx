/** A run's status as a coloured badge with text (colour is never the only signal). */
import type { RunStatus } from "@decision-workbench/api/shapes";

const TEXT: Record<RunStatus, string> = {
  queued: "Queued",
  running: "Running",
  done: "Done",
  cancelled: "Cancelled",
  failed: "Failed",
  stopped: "Stopped",
};

/** The badge. */
export function StatusBadge({ status }: { status: RunStatus }) {
  return <span className={`badge badge-${status}`}>{TEXT[status] ?? status}</span>;
}
