/** @decision-workbench/api: the workbench API, its storage, its run engine and the workbench command. */

/** Builds the Fastify app (routes, schemas, errors, token, OpenAPI at /docs, the web app). */
export { type AppOptions, BODY_LIMIT, buildApp } from "./app.js";
/** Starts the whole workbench (reference server, API, web app) and resumes interrupted runs. */
export { EMBEDDED_SERVER, type StartOptions, startWorkbench, type Workbench } from "./cli/serve.js";
/** Settings of `workbench serve` from flags and environment. */
export { ConfigError, DEFAULT_PORT, defaultDataDir, ENV, type ServeConfig, serveConfig } from "./config.js";
/** The run engine: create, cancel, resume, delete, follow, replay runs. */
export { CONCURRENCY, type EngineOptions, newId, RunEngine, type RunListener } from "./engine/engine.js";
/** Shapes the engine shows. */
export type { Headline, Progress, ReplayResult, RunInput, RunSummary } from "./engine/types.js";
/** API errors and their body shape. */
export { ApiError, badRequest, conflict, type ErrorBody, notFound } from "./errors.js";
/** Secrets at rest: AES-256-GCM with a key from WORKBENCH_SECRET_KEY or a 0600 key file. */
export { KEY_FILE, loadSecretKey, SECRET_KEY_ENV, SecretBox, SecretError } from "./secrets/index.js";
/** The SQLite storage and its migrations. */
export { MIGRATIONS, type Migration, migrate } from "./storage/migrations.js";
export { openStorage, SqliteStorage, type StorageOptions } from "./storage/sqlite.js";
/** Storage row types and interfaces. */
export type * from "./storage/types.js";
