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
/** A run's headline numbers. */
export type { Headline } from "./analysis/headline.js";
/** Builds the Fastify app (routes, schemas, errors, token, OpenAPI at /docs, the web app). */
export { type AppOptions, BODY_LIMIT, buildApp } from "./app.js";
/** Datasets: as listed, in detail (task and label counts), and an upload's body. */
export type { UploadInput } from "./catalog/catalog.js";
/** Starts the whole workbench (reference server, API, web app) and resumes interrupted runs. */
export { EMBEDDED_SERVER, type StartOptions, startWorkbench, type Workbench } from "./cli/serve.js";
/** Settings of `workbench serve` from flags and environment. */
export { ConfigError, DEFAULT_PORT, defaultDataDir, ENV, type ServeConfig, serveConfig } from "./config.js";
/** The run engine: create, cancel, resume, delete, follow, replay runs. */
export { type EngineOptions, newId, RunEngine, type RunListener } from "./engine/engine.js";
/** API errors. */
export { ApiError, badRequest, conflict, notFound } from "./errors.js";
/** Secrets at rest: AES-256-GCM with a key from WORKBENCH_SECRET_KEY or a 0600 key file. */
export { KEY_FILE, loadSecretKey, SECRET_KEY_ENV, SecretBox, SecretError } from "./secrets/index.js";
/** Every HTTP shape's type (the schemas are in `@decision-workbench/api/shapes`), and the input limits. */
export type * from "./shapes/index.js";
/** Storage declares these three too (storage/types.ts): the API's shapes win. */
export type { ExamplePage, RunStatus, Split } from "./shapes/index.js";
export * from "./shapes/limits.js";
/** The SQLite storage and its migrations. */
export { MIGRATIONS, type Migration, migrate } from "./storage/migrations.js";
export { openStorage, SqliteStorage, type StorageOptions } from "./storage/sqlite.js";
/** Storage row types and interfaces. */
export type * from "./storage/types.js";
