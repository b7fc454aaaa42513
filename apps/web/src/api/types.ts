/** Shapes of the workbench HTTP API, as written in apps/api/API.md. */

/** A dataset split. */
export type Split = "train" | "calibration" | "test";
/** A run's lifecycle. */
export type RunStatus = "queued" | "running" | "done" | "cancelled" | "failed";
/** An item's question kind. */
export type ItemKind = "choice" | "yesno" | "score" | "multi";
/** [point, low, high]; low and high are null for a secondary metric that was not resampled. */
export type CI = [number, number | null, number | null];

/** The body of an API error: `{error: {code, message, details?}}`. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown[] };
}

/** What POST/PATCH /api/servers take. */
export interface ServerInput {
  name: string;
  baseUrl: string;
  models: string[];
  apiKey?: string | null;
  extraBody?: Record<string, unknown>;
  timeout?: number;
  retries?: number;
  backoff?: number;
  deterministic?: boolean;
}

/** A registered decision server (the key itself is never returned). */
export interface Server {
  id: string;
  name: string;
  baseUrl: string;
  endpoint: string;
  models: string[];
  hasApiKey: boolean;
  extraBody: Record<string, unknown>;
  timeout: number;
  retries: number;
  backoff: number;
  deterministic: boolean;
  embedded: boolean;
  createdAt: string;
}

/** POST /api/servers/:id/check. */
export interface ServerCheck {
  ok: boolean;
  models: { name: string; description?: string }[] | null;
  modelsError?: string;
  probe: {
    model: string;
    status: string;
    answer?: unknown;
    confidence?: number;
    reason?: string;
    ms: number;
    servedBy?: string;
  };
}

/** One item of a dataset summary. */
export interface ItemSummary {
  name: string;
  kind: ItemKind;
  options: string[];
  notStated: boolean;
}

/** GET /api/datasets. */
export interface DatasetSummary {
  name: string;
  description: string;
  source: "bundled" | "upload";
  hash: string;
  examples: number;
  splits: { train: number; calibration: number; test: number };
  items: ItemSummary[];
}

/** An option of a task item. */
export type TaskOption = string | { name: string; description?: string };

/** A task definition (datasets package). */
export interface Task {
  name: string;
  description: string;
  provenance?: { source: string; package: string; licence: string; labels: string };
  items: {
    name: string;
    kind: ItemKind;
    question: string;
    options?: TaskOption[];
    levels?: TaskOption[];
    notStated?: boolean;
  }[];
}

/** GET /api/datasets/:name. */
export interface DatasetDetail extends DatasetSummary {
  task: Task;
  labelCounts: { item: string; split: Split; label: string; count: number }[];
}

/** One labelled example. */
export interface Example {
  id: string;
  state: unknown;
  labels: Record<string, string | string[]>;
  meta?: Record<string, unknown>;
  split: Split;
}

/** A located dataset validation error (400 invalid_dataset details). */
export interface ValidationError {
  line?: number;
  column?: number;
  columnName?: string;
  field?: string;
  message: string;
  code?: string;
}

/** Live counts of a run. */
export interface Progress {
  total: number;
  done: number;
  answered: number;
  unknown: number;
  escalated: number;
  errors: number;
  usage: { input_tokens: number; output_tokens: number; reasoning_tokens: number };
  cost: number;
  latency: { p50: number; p90: number; p99: number };
  examplesPerSecond: number;
}

/** Server options of a run. */
export interface RunOptions {
  max_think?: number;
  nothink_threshold?: number;
  return_reasoning?: boolean;
  think?: boolean;
}

/** POST /api/runs. */
export interface RunInput {
  dataset: string;
  serverId: string;
  model: string;
  splits?: Split[];
  concurrency?: number;
  maxLen?: number;
  options?: RunOptions;
  limit?: number;
}

/** A run as listed. */
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
  status: RunStatus;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  progress: Progress;
  headline: { accuracy: number | null; ece: number | null };
}

/** One reliability bin. */
export interface Bin {
  lo: number;
  hi: number;
  count: number;
  confidence: number | null;
  accuracy: number | null;
  low: number | null;
  high: number | null;
  /** Fewer than 10 items (greyed out); computed from `count` when absent. */
  sparse?: boolean;
}

/** Metrics of an item report (every one a CI). */
export interface ReportMetrics {
  accuracy: CI;
  ece: CI;
  eceMass: CI;
  mce: CI;
  classwiseEce?: CI;
  brier: CI;
  nll: CI;
  rps?: CI;
  smoothEce?: CI;
  debiasedL2?: CI;
  offByOne?: CI;
  microF1?: CI;
  macroF1?: CI;
}

/** One point of the risk-coverage curve. */
export interface RiskCoveragePoint {
  threshold: number;
  coverage: number;
  risk: number;
  escalated: number;
}

/** Per-label threshold curve of a multi-label item. */
export interface LabelThresholds {
  label: string;
  curve: { t: number; precision: number; recall: number; f1: number }[];
  /** Null when the label never applies. */
  tuned: number | null;
  f1At05: number;
  f1Tuned: number;
}

/** Per-option reliability and P/R/F1. */
export interface OptionReport {
  option: string;
  bins: Bin[];
  precision: number;
  recall: number;
  f1: number;
  support: number;
}

/** GET /api/runs/:id/report: one item, aggregated on the server. */
export interface ItemReport {
  item: ItemSummary;
  split: string;
  /** Usable rows measured (not escalated, with an output and a gold label). */
  n: number;
  counts: {
    answered: number;
    unknown: number;
    escalated: number;
    total?: number;
    invalid?: number;
    unlabelled?: number;
  };
  /** Null when nothing is usable. */
  metrics: ReportMetrics | null;
  bins: { width: Bin[]; mass: Bin[]; count: number };
  perOption: OptionReport[];
  histogram: { lo: number; hi: number; right: number; wrong: number }[];
  smooth?: { x: number; y: number }[];
  confusion?: { labels: string[]; matrix: number[][] };
  thresholds?: LabelThresholds[];
  unknown?: {
    predictedRate: number;
    goldRate: number;
    precision: number | null;
    recall: number | null;
    riskAnswered: number | null;
  };
  riskCoverage: RiskCoveragePoint[];
  aurc: number | null;
}

/** Filters of the items table. */
export type ItemFilter = "all" | "wrong" | "confident-wrong" | "unknown" | "escalated";

/** One row of GET /api/runs/:id/items. */
export interface ItemRow {
  exampleId: string;
  split: Split;
  state: unknown;
  gold: string | string[] | null;
  status: "answered" | "unknown" | "escalated";
  answer: string | string[] | null;
  confidence: number | null;
  probabilities: Record<string, number> | null;
  reason: string | null;
  /** A string, `{text, tokens, thought}`, or one of those per option (multi-label). */
  reasoning: unknown;
  /** Whether the answer equals the gold label (absent in older payloads). */
  correct?: boolean | null;
  servedBy: string | null;
}

/** The calibration file (decision-workbench/calibration@1). */
export interface CalibrationFile {
  schema: string;
  created_at: string;
  source: {
    fingerprint: string;
    endpoint: string;
    model: string;
    served_by: string[];
    dataset: { name: string; sha256: string };
    fit_split: string;
    eval_split: string;
  };
  questions: Record<
    string,
    {
      kind: string;
      options: string[];
      method: string;
      params: Record<string, unknown>;
      threshold?: { target_risk: number; min_confidence: number | null } | null;
      metrics?: Record<string, Record<string, CI>>;
      [key: string]: unknown;
    }
  >;
}

/** One calibrator candidate of an item. */
export interface Candidate {
  method: string;
  /** Held-out scores; null when the fit failed (then `error` says why). */
  heldOut: { nll: CI; brier: CI; ece: CI; accuracy: CI; eceMass?: CI; mce?: CI } | null;
  /** Paired candidate minus identity on the held-out rows. */
  delta?: { nll: CI; brier: CI; ece: CI; accuracy: CI } | null;
  chosen: boolean;
  /** Held-out predicted Unknown rate. */
  unknownRate?: number | null;
  warning?: string;
  error?: string;
}

/** A fitted calibration. */
export interface Calibration {
  id: string;
  /** Null for an imported file. */
  runId: string | null;
  createdAt: string;
  file: CalibrationFile;
  candidates: Record<string, Candidate[]>;
  before: Record<string, Bin[]>;
  after: Record<string, Bin[]>;
  /** Items that could not be fitted, and why. */
  skipped?: { item: string; reason: string }[];
}

/** POST /api/runs/:id/calibrations. */
export interface CalibrationInput {
  item?: string;
  fitSplit: "calibration";
  evalSplit: "test" | "crossfit";
  methods?: string[] | "auto";
  targetRisk?: number;
  conservative?: boolean;
  select?: "nll" | "brier";
}

/** GET /api/compare. */
export interface Comparison {
  runs: { id: string; model: string; servedBy: string[] }[];
  servedModelDiffers: boolean;
  /** Each delta is `run` minus `vs` (the first run), paired on the shared examples. */
  metrics: { name: string; values: CI[]; deltas: { run?: string; vs: string; delta: CI }[] }[];
  /** Examples usable in every run. */
  n?: number;
  bins: Bin[][];
  flipped: {
    total: number;
    compared?: number;
    rows: {
      exampleId: string;
      gold: string | string[] | null;
      answers: (string | string[] | null)[];
      statuses: string[];
    }[];
  };
}
