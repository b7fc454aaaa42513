/** What the delete dialog of a server says about the runs that use it. */

import type { ServerRuns } from "@decision-workbench/api/shapes";
import { plural } from "./format";

/** The runs the dialog names one by one; the rest are counted. */
export const RUNS_NAMED = 10;

/** The dialog's sentences and what the delete sends. */
export interface DeleteSummary {
  /** "No run uses this server." / "2 runs use this server:" (the named runs follow). */
  lead: string;
  /** The runs named, newest first. */
  named: ServerRuns["runs"];
  /** "and 14 more" when more runs use it than are named, else null. */
  more: string | null;
  /** What happens to the runs' results (null when no run uses it). */
  keep: string | null;
  /** Runs at work on it that the delete cancels, said (null when none). */
  cancels: string | null;
  /** Whether the delete must be forced (`?force=true`): runs use the server. */
  force: boolean;
}

/** The summary of `usage` (GET /api/servers/:id/runs). */
export function deleteSummary(usage: ServerRuns): DeleteSummary {
  const n = usage.count;
  if (n === 0)
    return {
      lead: "No run uses this server.",
      named: [],
      more: null,
      keep: null,
      cancels: null,
      force: false,
    };
  const named = usage.runs.slice(0, RUNS_NAMED);
  const active = usage.runs.filter((r) => r.status === "running" || r.status === "queued").length;
  return {
    lead: `${plural(n, "run")} ${n === 1 ? "uses" : "use"} this server:`,
    named,
    more: n > named.length ? `and ${plural(n - named.length, "more run")}` : null,
    keep:
      n === 1
        ? "Its results stay: the run keeps its answers and charts and still shows the server's name."
        : "Their results stay: the runs keep their answers and charts and still show the server's name.",
    cancels:
      active === 0
        ? null
        : `${active === 1 ? "1 of them is" : `${active} of them are`} still running and will be cancelled.`,
    force: true,
  };
}
