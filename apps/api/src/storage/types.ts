import type { DecisionRecord } from "@decision-workbench/scorer";
import type { Split, State, Task } from "@decision-workbench/datasets";

export type { Split };

/** A run's lifecycle. */
export type RunStatus = "queued" | "running" | "done" | "cancelled" | "failed";

/** One stored decision: one example x one item of a run. What every report reads. */
export interface PredictionRow {
  runId: string;
  exampleId: string;
  split: Split;
  item: string;
  /** The gold label: an option, a list of options (multi-label), "not stated", or null when unlabelled. */
  gold: string | string[] | null;
  status: "answered" | "unknown" | "escalated";
  answer: string | string[] | null;
  confidence: number | null;
  /** Options in item order, then "not stated" when allowed; null when escalated. */
  probabilities: Record<string, number> | null;
  logits: number[];
  unknown: number | null;
  reason: string | null;
  record: DecisionRecord;
  servedBy: string | null;
}

/** A stored run (see API.md RunSummary for what the API shows). */
export interface RunRow {
  id: string;
  dataset: string;
  datasetHash: string;
  serverId: string;
  endpoint: string;
  model: string;
  fingerprint: string;
  splits: Split[];
  concurrency: number;
  maxLen: number | null;
  options: Record<string, unknown>;
  limit: number | null;
  status: RunStatus;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A stored calibration (see API.md Calibration). */
export interface CalibrationRow {
  id: string;
  runId: string | null;
  createdAt: string;
  /** The whole Calibration payload of API.md, as JSON. */
  payload: Record<string, unknown>;
}

/** Prediction filters. */
export interface PredictionFilter {
  split?: Split | Split[];
  item?: string;
}

/**
 * The storage interface: all SQL lives behind it, async so a PostgreSQL implementation can follow.
 * (The API-core engineer owns and extends this file; the members below are relied on by the analysis code.)
 */
export interface Storage {
  getRun(id: string): Promise<RunRow | undefined>;
  listRuns(filter?: { dataset?: string; status?: RunStatus }): Promise<RunRow[]>;
  /** The task of a run's dataset (bundled or uploaded). */
  getTask(dataset: string): Promise<Task | undefined>;
  /** States of the given examples of a dataset, by id. */
  getStates(dataset: string, ids: string[]): Promise<Map<string, State>>;
  listPredictions(runId: string, filter?: PredictionFilter): Promise<PredictionRow[]>;
  saveCalibration(row: CalibrationRow): Promise<void>;
  getCalibration(id: string): Promise<CalibrationRow | undefined>;
  listCalibrations(filter?: { runId?: string }): Promise<CalibrationRow[]>;
}
