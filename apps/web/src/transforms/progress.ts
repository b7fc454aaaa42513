/** Run progress read-out: the panel's figures, whether the run's numbers are partial, when to refresh them. */

import type { Progress, RunStatus } from "@decision-workbench/api/shapes";

/** Where a run is: no answer yet, answering, or no longer running (done, cancelled, stopped, failed). */
export type RunPhase = "preparing" | "running" | "ended";

/** What the progress panel shows. */
export interface ProgressView {
  phase: RunPhase;
  /** 0..100. */
  percent: number;
  /** "120 / 342". */
  doneText: string;
  /** "Preparing 342 examples" before the first answer, else null. */
  preparingText: string | null;
  /** Seconds left at the current pace; null when unknown and whenever the run is not running. */
  etaSeconds: number | null;
  /** Shares of the decisions made so far. */
  answeredShare: number;
  unknownShare: number;
  escalatedShare: number;
  /** "waiting for rate limit, N s" while the run's requests wait for its server's rate limit, else null. */
  rateLimitText: string | null;
}

const n = (x: number) => x.toLocaleString("en-US");

/** The run's phase: queued or running with no example done is preparing. */
export function runPhase(status: RunStatus, p: Progress): RunPhase {
  if (status !== "running" && status !== "queued") return "ended";
  return p.done === 0 ? "preparing" : "running";
}

/**
 * Percent done, the remaining time at the current pace (only while the run is running) and the decision shares.
 * `status` defaults to running, as the progress stream only speaks while a run is active.
 */
export function progressView(p: Progress, status: RunStatus = "running"): ProgressView {
  const phase = runPhase(status, p);
  const percent = p.total > 0 ? Math.min(100, (p.done / p.total) * 100) : 0;
  const decided = p.answered + p.unknown + p.escalated;
  const left = Math.max(0, p.total - p.done);
  const eta = p.examplesPerSecond > 0 && left > 0 ? left / p.examplesPerSecond : left === 0 ? 0 : null;
  return {
    phase,
    percent,
    doneText: `${n(p.done)} / ${n(p.total)}`,
    preparingText:
      phase === "preparing" ? `Preparing ${n(p.total)} example${p.total === 1 ? "" : "s"}` : null,
    etaSeconds: phase === "running" ? eta : null,
    answeredShare: decided ? p.answered / decided : 0,
    unknownShare: decided ? p.unknown / decided : 0,
    escalatedShare: decided ? p.escalated / decided : 0,
    rateLimitText:
      p.waitingForRateLimit === null || p.waitingForRateLimit === undefined
        ? null
        : `waiting for rate limit, ${Math.max(1, Math.ceil(p.waitingForRateLimit))} s`,
  };
}

/** How much of a run its metrics and charts cover, when that is not all of it. */
export interface PartialMark {
  done: number;
  total: number;
  /** "partial: 448 of 1,530 examples". */
  text: string;
  /** Why: "the run is still running", "the run was cancelled", … */
  reason: string;
}

const REASON: Record<RunStatus, string> = {
  queued: "the run has not started yet",
  running: "the run is still running",
  done: "",
  cancelled: "the run was cancelled",
  stopped: "the run stopped at its budget",
  failed: "the run failed",
};

/**
 * The "partial: N of M examples" mark of a run's figures: while it is queued or running, and when it ended
 * (cancelled, stopped, failed) before every example was answered; null for a complete run.
 */
export function partialMark(status: RunStatus, p: Pick<Progress, "done" | "total">): PartialMark | null {
  const active = status === "running" || status === "queued";
  if (!active && (status === "done" || p.done >= p.total)) return null;
  return {
    done: p.done,
    total: p.total,
    text: `partial: ${n(p.done)} of ${n(p.total)} example${p.total === 1 ? "" : "s"}`,
    reason: REASON[status],
  };
}

/** How often, at most, live progress refreshes the run's figures (ms). */
export const FIGURES_REFRESH_MS = 3000;

/** Whether figures last refreshed at `last` (ms, null: never) are due a refresh at `now`. */
export function refreshDue(last: number | null, now: number, every = FIGURES_REFRESH_MS): boolean {
  return last === null || now - last >= every;
}
