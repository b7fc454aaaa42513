/**
 * Every HTTP shape of the API, written once as TypeBox schemas: the routes validate and serialise with them, the
 * OpenAPI document at /docs is built from them, and their types (`Static<>`) are what clients import
 * (`import type { ... } from "@decision-workbench/api/shapes"`). The limits live in ./limits.ts
 * (`@decision-workbench/api/limits`), which has no imports.
 */

export * from "./calibrations.js";
export * from "./common.js";
export * from "./datasets.js";
export * from "./reports.js";
export * from "./runs.js";
export * from "./servers.js";
