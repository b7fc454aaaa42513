import type { Split, State, Task } from "@decision-workbench/datasets";
import type { DecisionRecord, State as WireState } from "@decision-workbench/scorer";
import type { ItemSpec } from "../analysis/item-spec.js";
import type { Percentiles } from "../engine/percentiles.js";
import type { ItemColumns } from "./item-columns.js";

export type { Split };

/** A run's lifecycle. */
export type RunStatus = "queued" | "running" | "done" | "cancelled" | "failed" | "stopped";

/** Which runs a listing gives (all when empty): of a dataset, in a status, on a server. */
export interface RunFilter {
  dataset?: string;
  status?: RunStatus;
  serverId?: string;
}

/** Why a run is `stopped`: `budget`, its maxCost or maxInputTokens was reached (resumable with a higher cap). */
export type StopReason = "budget";

/** One stored decision: one example x one item of a run, as listed and exported (reports read `itemColumns`). */
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
  /** The run stops (`stopped`, reason `budget`) before a request would take its cost past this; null: no cap. */
  maxCost: number | null;
  /** The same for its input tokens (as the replies report them, estimated for requests in flight). */
  maxInputTokens: number | null;
  status: RunStatus;
  /** Why the run is `stopped`, else null. */
  stopReason: StopReason | null;
  /**
   * Its items' specs, fixed when the run is stored (from its dataset's task; an item the task does not name gets
   * a spec read from its first decision): the order of the stored analysis columns. Given by the storage.
   */
  items?: ItemSpec[];
  error: string | null;
  createdAt: string;
  /** The name of the person whose token started it; absent when no person's token did. */
  createdBy?: string;
  /** The name people gave the run (trimmed, 1-80 characters); absent when none is given. */
  name?: string;
  /** A note about the run (at most 2,000 characters); absent when none is given. */
  note?: string;
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

/**
 * A stored prediction as the analysis reads it: no logits, and of the decision record only the item's reasoning.
 * A PredictionRow is one too.
 */
export type AnalysisRow = Pick<
  PredictionRow,
  | "exampleId"
  | "split"
  | "item"
  | "gold"
  | "status"
  | "answer"
  | "confidence"
  | "probabilities"
  | "reason"
  | "servedBy"
> & { record?: Pick<DecisionRecord, "reasoning"> };

/** Prediction filters. */
export interface PredictionFilter {
  split?: Split | Split[];
  item?: string;
}

/**
 * The storage interface: all SQL lives behind it. Two stores implement it, SQLite (sqlite.ts) and PostgreSQL
 * (postgres/postgres.ts), over the same rows (rows.ts, answer-rows.ts) and derived members (store-base.ts); one
 * contract (test/storage-contract.ts) runs against both. The members below are what the analysis code reads.
 */
export interface Storage {
  getRun(id: string): Promise<RunRow | undefined>;
  listRuns(filter?: RunFilter): Promise<RunRow[]>;
  /** The task of a run's dataset (bundled or uploaded). */
  getTask(dataset: string): Promise<Task | undefined>;
  /** States of the given examples of a dataset, by id. */
  getStates(dataset: string, ids: string[]): Promise<Map<string, State>>;
  /** The same states as the scorer sends them: an OrderedState where the file's key order differs from the object's. */
  getWireStates(dataset: string, ids: string[]): Promise<Map<string, WireState>>;
  /** Every matching prediction at once (small runs and tests; large runs use the page readers). */
  listPredictions(runId: string, filter?: PredictionFilter): Promise<PredictionRow[]>;
  /**
   * Matching predictions in run order, a page at a time (writes can go on between pages), so a large run is never
   * held whole.
   */
  predictionPages(runId: string, filter?: PredictionFilter): AsyncIterable<PredictionRow[]>;
  /**
   * The analysis columns of one item of a run (its index in the run's `items`), in run order, on the given
   * splits (all when none): what every report reads.
   */
  itemColumns(runId: string, itemIndex: number, splits?: readonly Split[]): Promise<ItemColumns>;
  /**
   * The same columns as `itemColumns`, handed to `visit` part by part, so that a pass over a large run holds one
   * part at a time: each packed chunk numbered after `after` (all when -1, the default) with its number (a chunk
   * never changes once packed), then the loose rows (chunk null); each part in run order, the parts not.
   */
  eachItemPart(
    runId: string,
    itemIndex: number,
    splits: readonly Split[] | undefined,
    visit: (part: ItemColumns, chunk: number | null) => void,
    after?: number,
  ): Promise<void>;
  /** The stored decisions of one item for some examples of a run, by example id (the items endpoint's page). */
  predictionsFor(runId: string, item: string, exampleIds: string[]): Promise<Map<string, PredictionRow>>;
  /** The run with its counters (their sum is the prediction count that versions the computed reports). */
  getStoredRun(id: string): Promise<StoredRun | undefined>;
  saveCalibration(row: CalibrationRow): Promise<void>;
  getCalibration(id: string): Promise<CalibrationRow | undefined>;
  listCalibrations(filter?: { runId?: string }): Promise<CalibrationRow[]>;
}

// ---------------------------------------------------------------------------------------------------------
// Extensions owned by the API core (servers, uploads, run bookkeeping). Everything above is read by the
// analysis code and keeps its shape.
// ---------------------------------------------------------------------------------------------------------

/** A stored decision server. The API key and the full base URL are kept encrypted (see secrets/). */
export interface ServerRow {
  id: string;
  name: string;
  /** The base URL without credentials, query or fragment (what is shown). */
  baseUrl: string;
  /** The full base URL as given (credentials and query included), encrypted. */
  baseUrlSecret: string;
  /** The endpoint the scorer shows: `{baseUrl}/v1/decision`, no credentials or query. */
  endpoint: string;
  models: string[];
  /** The encrypted API key, or null when none is set. */
  apiKeySecret: string | null;
  extraBody: Record<string, unknown>;
  timeout: number;
  retries: number;
  backoff: number;
  deterministic: boolean;
  /** Requests a minute the server allows (engine/rate-lane.ts paces every run on it), or null: no limit. */
  requestsPerMinute: number | null;
  /** Estimated input tokens a minute the server allows, or null: no limit. */
  inputTokensPerMinute: number | null;
  /** Price per million input tokens (any currency, the same as the replies' `cost`), or null: none given. */
  inputPricePerMillion: number | null;
  /** Price per million output tokens, or null. */
  outputPricePerMillion: number | null;
  embedded: boolean;
  createdAt: string;
}

/** An uploaded dataset's header (its examples are stored beside it). */
export interface UploadRow {
  name: string;
  task: Task;
  hash: string;
  examples: number;
  splits: Record<Split, number>;
  createdAt: string;
  /** The name of the person whose token uploaded it; absent when no person's token did. */
  createdBy?: string;
}

/** One stored example of an uploaded dataset. */
export interface ExampleRow {
  id: string;
  state: State;
  /** The state's JSON text in its file's key order, when `state` lost it (datasets' Example.stateJson). */
  stateJson?: string;
  labels: Record<string, string | string[]>;
  meta?: Record<string, unknown>;
  split: Split;
}

/** A page of examples. */
export interface ExamplePage {
  total: number;
  examples: ExampleRow[];
}

/** Running sums of a run, updated in the same transaction as each answered example. */
export interface RunCounters {
  /** Examples stored (each with all of its items). */
  done: number;
  /** Decisions (example x item) answered, Unknown ("not stated") and escalated. */
  answered: number;
  unknown: number;
  escalated: number;
  /** Examples whose request did not answer at all (every item escalated). */
  errors: number;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cost: number;
  /** Milliseconds the engine has spent working on this run, summed over sessions. */
  activeMs: number;
}

/** The counters of a run nothing has been stored for yet. */
export function emptyCounters(): RunCounters {
  return {
    done: 0,
    answered: 0,
    unknown: 0,
    escalated: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    cost: 0,
    activeMs: 0,
  };
}

/** A run as stored, with its bookkeeping. */
export interface StoredRun extends RunRow {
  serverName: string;
  /** Examples the run covers (after splits and limit). */
  total: number;
  /** The process that works on the run while it is `running` (null otherwise). */
  ownerPid: number | null;
  counters: RunCounters;
  /** The headline cached when the run finished (null while running or after a resume). */
  headline: { accuracy: number | null; ece: number | null; n?: number } | null;
  /** What a finished run's summary reads from all its answers, stored at its first summary (null as headline). */
  stats: RunStats | null;
}

/** A run's request-time percentiles and the model versions that answered (sorted). */
export interface RunStats {
  latency: Percentiles;
  servedBy: string[];
}

/** What the engine stores for one answered example: the request's facts and one row per item. */
export interface ExampleResult {
  runId: string;
  exampleId: string;
  /** The example's position in the run (dataset order after splits and limit): predictions are listed in it. */
  ordinal: number;
  split: Split;
  /** The request's measured time (the scorer's record `ms`). */
  ms: number;
  servedBy: string | null;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cost: number;
  /** True when the request did not answer (every item escalated). */
  failed: boolean;
  /** The request's decision record, without per-item reasoning (stored once per example); default: the first prediction's. */
  record?: DecisionRecord;
  /** One row per item; each row's record is this record plus the item's reasoning. */
  predictions: PredictionRow[];
}

/** A run's status and finish time as read: `updateRun` writes what was computed from it only while they hold. */
export type RunMoment = Pick<StoredRun, "status" | "finishedAt">;

/** The fields of a run that `updateRun` sets (a null name or note clears it). */
export type RunPatch = { name?: string | null; note?: string | null } & Partial<
  Pick<
    StoredRun,
    | "status"
    | "error"
    | "startedAt"
    | "finishedAt"
    | "ownerPid"
    | "headline"
    | "stats"
    | "total"
    | "maxCost"
    | "maxInputTokens"
    | "stopReason"
  >
>;

/** An upload's examples in some splits, as columns (WorkbenchStorage.uploadOutline). */
export interface UploadOutline {
  upload: UploadRow;
  /** Each example's ordinal in the upload, ascending. */
  ordinals: Int32Array;
  /** Each example's split, as its index in the splits asked for. */
  splits: Uint8Array;
}

/** The full storage used by the API core: the analysis members plus servers, uploads and runs. */
export interface WorkbenchStorage extends Storage {
  // servers
  listServers(): Promise<ServerRow[]>;
  getServer(id: string): Promise<ServerRow | undefined>;
  insertServer(row: ServerRow): Promise<void>;
  updateServer(row: ServerRow): Promise<void>;
  deleteServer(id: string): Promise<void>;
  /** How many runs name this server. */
  countRunsOfServer(id: string): Promise<number>;

  // uploaded datasets (bundled ones come from the datasets package). An upload being stored or deleted is
  // pending: every reader below treats it as not there.
  listUploads(): Promise<UploadRow[]>;
  getUpload(name: string): Promise<UploadRow | undefined>;
  /**
   * Stores a dataset and all its examples in short transactions (upload-sql.ts; PostgreSQL: pg-uploads.ts),
   * hidden until the last one; nothing is left when it fails.
   */
  insertUpload(row: UploadRow, examples: ExampleRow[]): Promise<void>;
  /** Deletes an upload: hidden at once, then its rows in short transactions. */
  deleteUpload(name: string): Promise<void>;
  /** Deletes what the upload with this id (an upload thread's, ended before it was complete) left pending. */
  abandonUpload(upload: string): Promise<void>;
  /** Examples of an upload in file order, optionally one split, with a case-insensitive text filter. */
  pageExamples(
    name: string,
    opts: { split?: Split; offset: number; limit: number; q?: string },
  ): Promise<ExamplePage>;
  /** Every example of an upload, in file order. */
  allExamples(name: string): Promise<ExampleRow[]>;
  /**
   * An upload and every example of it, in file order, read together (one read transaction).
   */
  uploadWithExamples(
    name: string,
  ): Promise<{ upload: UploadRow; examples: readonly ExampleRow[] } | undefined>;
  /**
   * An upload's examples in `splits`, in file order, as columns without their text: each one's ordinal in the
   * upload and the index of its split in `splits` (what a run of a million examples can hold).
   */
  uploadOutline(name: string, splits: readonly Split[]): Promise<UploadOutline | undefined>;
  /** An upload's examples with these ordinals (ascending), in file order: those it has, only. */
  uploadExamplesAt(name: string, ordinals: Int32Array): Promise<ExampleRow[]>;
  /** How many runs use this dataset. */
  countRunsOfDataset(name: string): Promise<number>;

  // runs
  insertRun(run: StoredRun): Promise<void>;
  listStoredRuns(filter?: RunFilter): Promise<StoredRun[]>;
  /**
   * Sets the given fields of a run. With `onlyWhile`: only while the run's status and finish time are still those
   * (what was computed from a done run is not written onto it once resumed or finished again); false when the
   * run was not so, and nothing was written.
   */
  updateRun(id: string, patch: RunPatch, onlyWhile?: RunMoment): Promise<boolean>;
  /** Adds working time to a run's counters. */
  addActiveMs(id: string, ms: number): Promise<void>;
  /**
   * Stores one answered example (its predictions, its request facts, the run's counters) in one transaction;
   * resolves once it is committed. An example whose (run, example) is stored already, by this process or another
   * on the same database, stores and counts nothing: the call rejects with AlreadyStored (errors.ts, code
   * `ALREADY_STORED`), which a queued worker that was handed the example again takes as "already done". Any
   * other rejection (e.g. a run that is not there, an ordinal taken by another example) is the database's error.
   */
  recordExample(result: ExampleResult): Promise<void>;
  /** The run ordinals of a run's stored examples from `from` (inclusive) to `to` (exclusive), ascending. */
  storedOrdinals(runId: string, from: number, to: number): Promise<Int32Array>;
  /** Request times of a run in milliseconds, ascending. */
  latencies(runId: string): Promise<number[]>;
  /** The nearest-rank percentiles of a run's request times (engine/percentiles.ts), without reading them all here. */
  latencyPercentiles(runId: string): Promise<Percentiles>;
  /** The distinct models that served a run (served_by when named, else the requested model). */
  servedModels(runId: string): Promise<string[]>;
  /** Deletes a run, its predictions and its calibrations. */
  deleteRun(id: string): Promise<void>;

  // person tokens (security/person-tokens.ts): read on every authenticated request, so a revocation made
  // through any store on the database is seen by every API instance at once
  /** Stores a new token; rejects when its name (or hash) is taken. */
  insertToken(row: TokenRow): Promise<void>;
  /** Every token, active or revoked, by creation time; never their hashes. */
  listTokens(): Promise<TokenInfo[]>;
  /** Revokes the active token of that name; false when there is none. */
  revokeToken(name: string): Promise<boolean>;
  /** The active token with that hash, if any. */
  tokenByHash(hash: string): Promise<TokenInfo | undefined>;
  /** Whether any token is active (then every /api request needs a token). */
  hasActiveTokens(): Promise<boolean>;

  /**
   * "ok" when the store is sound, else what is wrong, a line each. SQLite: `PRAGMA integrity_check` (the file's
   * pages, indexes and constraints). PostgreSQL: every run's counters against its rows (`done` is the number of
   * its stored examples, `packed` at most `done`); the database checks its own files.
   */
  integrityCheck(): Promise<string>;
  /** Where the store is: the SQLite file's path, or the PostgreSQL database URL without its password. */
  readonly path: string;
  /**
   * How another connection (an upload thread's) opens the same database. The PostgreSQL URL keeps its password:
   * never shown, logged or returned.
   */
  readonly database: StoreLocation;
  close(): Promise<void>;
}

/** A person's API token as stored: its SHA-256 hash, never the token (security/person-tokens.ts). */
export interface TokenRow {
  id: string;
  /** Who holds it: 1-64 of [a-z0-9._-], unique (a revoked token keeps its name). */
  name: string;
  /** SHA-256 of the token, hex. */
  hash: string;
  createdAt: string;
  /** When it was revoked, or null while it is active. */
  revokedAt: string | null;
}

/** A token as listed: everything but its hash. */
export type TokenInfo = Omit<TokenRow, "hash">;

/** Where a store's database is, for a second connection to it. */
export type StoreLocation = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };
