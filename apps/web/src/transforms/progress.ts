/** Run progress read-out. */

import type { Progress } from "@decision-workbench/api/shapes";

/** What the progress panel shows. */
export interface ProgressView {
  /** 0..100. */
  percent: number;
  /** "120 / 342". */
  doneText: string;
  /** Seconds left at the current pace, null when unknown. */
  etaSeconds: number | null;
  /** Shares of the decisions made so far. */
  answeredShare: number;
  unknownShare: number;
  escalatedShare: number;
  /** "waiting for rate limit, N s" while the run's requests wait for its server's rate limit, else null. */
  rateLimitText: string | null;
}

/** Percent done, the remaining time at the current pace and the decision shares. */
export function progressView(p: Progress): ProgressView {
  const percent = p.total > 0 ? Math.min(100, (p.done / p.total) * 100) : 0;
  const decided = p.answered + p.unknown + p.escalated;
  const left = Math.max(0, p.total - p.done);
  return {
    percent,
    doneText: `${p.done.toLocaleString("en-US")} / ${p.total.toLocaleString("en-US")}`,
    etaSeconds: p.examplesPerSecond > 0 && left > 0 ? left / p.examplesPerSecond : left === 0 ? 0 : null,
    answeredShare: decided ? p.answered / decided : 0,
    unknownShare: decided ? p.unknown / decided : 0,
    escalatedShare: decided ? p.escalated / decided : 0,
    rateLimitText:
      p.waitingForRateLimit === null || p.waitingForRateLimit === undefined
        ? null
        : `waiting for rate limit, ${Math.max(1, Math.ceil(p.waitingForRateLimit))} s`,
  };
}
