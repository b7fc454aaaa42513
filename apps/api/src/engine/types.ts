/** The shapes the engine shows: progress and run summaries (API.md `Progress`, `RunSummary`). */

import type { Headline } from "../analysis/headline.js";
import type { RunStatus, Split, StopReason } from "../storage/types.js";

/** Live or final progress of a run. */
export interface Progress {
  /** Examples the run covers. */
  total: number;
  /** Examples stored. */
  done: number;
  /** Decisions (example x item) answered, Unknown and escalated. */
  answered: number;
  unknown: number;
  escalated: number;
  /** Examples whose request did not answer (every item escalated). */
  errors: number;
  usage: { input_tokens: number; output_tokens: number; reasoning_tokens: number };
  cost: number;
  /** Request time percentiles, milliseconds. */
  latency: { p50: number; p90: number; p99: number };
  examplesPerSecond: number;
  /**
   * Seconds until the run's queued requests may go under its server's rate limit (requests a minute, input
   * tokens a minute, or a 429's Retry-After pause), one decimal; null when none waits for it.
   */
  waitingForRateLimit: number | null;
  /**
   * The run's caps, which `usage.input_tokens` and `cost` are spent against; null when it has none. The run stops
   * (`stopped`, reason `budget`) before a request whose estimate would take it past one.
   */
  budget: { maxCost: number | null; maxInputTokens: number | null } | null;
}

/** Accuracy and ECE over every item (test split when the run has one). */
export type { Headline };

/** What GET /api/runs/:id answers. */
export interface RunSummary {
  id: string;
  dataset: string;
  datasetHash: string;
  serverId: string;
  serverName: string;
  endpoint: string;
  model: string;
  servedBy: string[];
  fingerprint: string;
  splits: Split[];
  concurrency: number;
  maxLen: number | null;
  options: Record<string, unknown>;
  limit: number | null;
  maxCost: number | null;
  maxInputTokens: number | null;
  status: RunStatus;
  /** Why the run is `stopped` (`budget`: a cap was reached), else null. */
  stopReason: StopReason | null;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  progress: Progress;
  headline: Headline;
}

/** What a run is started with. */
export interface RunInput {
  dataset: string;
  serverId: string;
  model: string;
  splits?: Split[];
  concurrency?: number;
  maxLen?: number | null;
  options?: Record<string, unknown>;
  limit?: number | null;
  /** Caps: the run stops (`stopped`, reason `budget`) before a request that would take it past one. */
  maxCost?: number | null;
  maxInputTokens?: number | null;
}

/** What a resume may change: higher (or no) caps. */
export interface ResumeInput {
  maxCost?: number | null;
  maxInputTokens?: number | null;
}

/** What POST /api/runs/:id/replay answers. */
export interface ReplayResult {
  /** Decisions checked. */
  checked: number;
  /** Decisions with at least one difference. */
  differing: number;
  /** True when the service was asked again (a deterministic server). */
  called: boolean;
  /** Differences per field (status, answer, probabilities, served_by, endpoint, model, confidence). */
  byField: Record<string, number>;
  /** The first 200 differing decisions. */
  examples: { exampleId: string; item: string; differences: unknown[] }[];
}
