/** @decision-workbench/api: the workbench API, its storage, its run engine and the workbench command. */

/** The calibration file (decision-workbench/calibration@1) and its parts, as clients read them. */
export type {
  CalibrationFile,
  CalibrationSource,
  FileError,
  FileThreshold,
  Method,
  QuestionCalibration,
  QuestionCheck,
} from "@decision-workbench/calibration";
/** A task definition, its items and options, and a located dataset validation error (400 invalid_dataset details). */
export type { Item, Option, Task, ValidationError } from "@decision-workbench/datasets";
/** Reports: reliability bins and confidence histogram bars. */
export type { Bin, HistogramBar } from "./analysis/bins.js";
/** A fitted calibrator candidate with its held-out scores. */
export type { Candidate } from "./analysis/calibrate.js";
/** The verdict of checking predictions against a calibration file. */
export type { CheckDetail, CheckReport } from "./analysis/check.js";
/** GET /api/compare. */
export type { Comparison, FlippedRow } from "./analysis/compare.js";
/** An item as reports show it (kind, options, whether Unknown is allowed). */
export type { ItemSpec } from "./analysis/item-spec.js";
/** Filters of the items endpoint. */
export type { ItemsFilter } from "./analysis/items.js";
/** Numbers with bootstrap intervals, and an item report's metrics. */
export type { CI, MaybeCI, Metrics as ReportMetrics } from "./analysis/metrics.js";
/** GET /api/runs/:id/report and its per-option part. */
export type { ItemReport, OptionReport } from "./analysis/report.js";
/** The risk-coverage curve and Unknown as an abstention. */
export type { RiskPoint, UnknownReport } from "./analysis/selective.js";
/** A multi-label item's per-label threshold curve. */
export type { LabelCurve } from "./analysis/thresholds.js";
/** Builds the Fastify app (routes, schemas, errors, token, OpenAPI at /docs, the web app). */
export { type AppOptions, BODY_LIMIT, buildApp } from "./app.js";
/** Datasets: as listed, in detail (task and label counts), and an upload's body. */
export type { DatasetDetail, DatasetSummary, UploadInput } from "./catalog/catalog.js";
/** Starts the whole workbench (reference server, API, web app) and resumes interrupted runs. */
export { EMBEDDED_SERVER, type StartOptions, startWorkbench, type Workbench } from "./cli/serve.js";
/** Settings of `workbench serve` from flags and environment. */
export { ConfigError, DEFAULT_PORT, defaultDataDir, ENV, type ServeConfig, serveConfig } from "./config.js";
/** Shapes the engine shows. */
export type { RunEstimate } from "./engine/cost-guard.js";
/** The run engine: create, cancel, resume, delete, follow, replay runs. */
export { CONCURRENCY, type EngineOptions, newId, RunEngine, type RunListener } from "./engine/engine.js";
export type { Headline, Progress, ReplayResult, ResumeInput, RunInput, RunSummary } from "./engine/types.js";
/** API errors and their body shape. */
export { ApiError, badRequest, conflict, type ErrorBody, notFound } from "./errors.js";
/** A stored or returned calibration, the fit request, and a run checked against a calibration. */
export type { Calibration, FitRequest, RunCheck } from "./routes/analysis/fit-run.js";
/** One row of GET /api/runs/:id/items. */
export type { ItemRow } from "./shapes/reports.js";
/** Secrets at rest: AES-256-GCM with a key from WORKBENCH_SECRET_KEY or a 0600 key file. */
export { KEY_FILE, loadSecretKey, SECRET_KEY_ENV, SecretBox, SecretError } from "./secrets/index.js";
/** POST /api/servers/:id/check. */
export type { CheckResult as ServerCheck } from "./servers/check.js";
/** Servers: what POST/PATCH take and what the API shows (never a key). */
export type { ServerInput, ServerView } from "./servers/view.js";
/** The SQLite storage and its migrations. */
export { MIGRATIONS, type Migration, migrate } from "./storage/migrations.js";
export { openStorage, SqliteStorage, type StorageOptions } from "./storage/sqlite.js";
/** Storage row types and interfaces. */
export type * from "./storage/types.js";
