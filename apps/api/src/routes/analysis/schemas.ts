/** JSON schemas of the analysis routes: every query and body validated, /docs built from them. */

import { METHODS } from "@decision-workbench/calibration";

const split = {
  type: "string",
  enum: ["train", "calibration", "test", "all"],
  description: "a split, or all",
} as const;
const itemName = {
  type: "string",
  minLength: 1,
  maxLength: 200,
  description: "an item of the run's dataset",
} as const;

/** Path `:id`. */
export const runParams = {
  type: "object",
  properties: { id: { type: "string", minLength: 1, maxLength: 200 } },
  required: ["id"],
  additionalProperties: false,
} as const;

/** GET /api/runs/:id/report query. */
export const reportQuery = {
  type: "object",
  properties: {
    item: itemName,
    split,
    bins: { type: "integer", minimum: 2, maximum: 100, description: "an integer from 2 to 100 (15)" },
    binning: { type: "string", enum: ["width", "mass"] },
    view: { type: "string", enum: ["top", "classwise"] },
    resamples: { type: "integer", minimum: 10, maximum: 10000, description: "an integer from 10 to 10000" },
    interval: { type: "string", enum: ["wilson", "jeffreys"] },
    ci: { type: "string", enum: ["auto", "all", "headline"] },
  },
  additionalProperties: false,
} as const;

/** GET /api/runs/:id/report.json query. */
export const reportAllQuery = {
  type: "object",
  properties: {
    split,
    bins: reportQuery.properties.bins,
    resamples: reportQuery.properties.resamples,
    ci: reportQuery.properties.ci,
  },
  additionalProperties: false,
} as const;

/** GET /api/runs/:id/items query. */
export const itemsQuery = {
  type: "object",
  properties: {
    item: itemName,
    split,
    filter: { type: "string", enum: ["all", "wrong", "confident-wrong", "unknown", "escalated"] },
    label: { type: "string", minLength: 1, maxLength: 200 },
    offset: { type: "integer", minimum: 0, maximum: 10_000_000 },
    limit: { type: "integer", minimum: 1, maximum: 500, description: "an integer from 1 to 500 (50)" },
  },
  additionalProperties: false,
} as const;

/** GET /api/runs/:id/export.csv and export.json query. */
export const exportQuery = {
  type: "object",
  properties: { item: itemName, split },
  additionalProperties: false,
} as const;

const methodName = { type: "string", enum: [...METHODS] } as const;

/** POST /api/runs/:id/calibrations body. */
export const fitBody = {
  type: "object",
  properties: {
    item: itemName,
    fitSplit: { type: "string", enum: ["train", "calibration", "test"] },
    evalSplit: { type: "string", enum: ["train", "calibration", "test", "crossfit"] },
    selectionSplit: {
      type: "string",
      enum: ["train", "calibration", "test"],
      description: "a third split to compare candidates on (neither fitSplit nor evalSplit)",
    },
    method: {
      type: "string",
      enum: ["auto", ...METHODS],
      description: `"auto" (chosen by cross-fitting), or a method to force: ${METHODS.join(", ")}`,
    },
    methods: {
      anyOf: [
        { type: "string", enum: ["auto"] },
        { type: "array", minItems: 1, maxItems: METHODS.length, items: methodName, uniqueItems: true },
      ],
      description: `the candidates of method "auto": "auto" (all), or a list from ${METHODS.join(", ")}`,
    },
    targetRisk: {
      type: "number",
      minimum: 0,
      exclusiveMaximum: 1,
      description: "an error rate in [0, 1), e.g. 0.05",
    },
    conservative: { type: "boolean" },
    select: { type: "string", enum: ["nll", "brier"] },
    bins: reportQuery.properties.bins,
    resamples: reportQuery.properties.resamples,
  },
  additionalProperties: false,
} as const;

/** GET /api/calibrations query. */
export const calibrationsQuery = {
  type: "object",
  properties: { runId: { type: "string", minLength: 1, maxLength: 200 } },
  additionalProperties: false,
} as const;

/** POST /api/runs/:id/check body: a stored calibration or a file. */
export const checkBody = {
  type: "object",
  properties: {
    calibrationId: { type: "string", minLength: 1, maxLength: 200 },
    file: { type: "object", additionalProperties: true },
    split,
    bins: reportQuery.properties.bins,
  },
  additionalProperties: false,
} as const;

/** GET /api/compare query. */
export const compareQuery = {
  type: "object",
  properties: {
    runs: {
      type: "string",
      minLength: 3,
      maxLength: 2000,
      pattern: "^[^,]+(,[^,]+)+$",
      description: "two or more run ids separated by commas, e.g. run_a,run_b",
    },
    item: itemName,
    split,
    bins: reportQuery.properties.bins,
    resamples: reportQuery.properties.resamples,
    offset: itemsQuery.properties.offset,
    limit: itemsQuery.properties.limit,
  },
  required: ["runs"],
  additionalProperties: false,
} as const;

/** Any JSON object (payloads are documented in API.md; never coerced by a serializer schema). */
export const payload = (description: string) =>
  ({ type: "object", additionalProperties: true, description }) as const;

/** The error body. */
export const errorBody = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        details: { type: "array", items: { type: "object", additionalProperties: true } },
      },
      required: ["code", "message"],
    },
  },
  required: ["error"],
} as const;

/** Error answers of every route. */
export const errors = { "4xx": errorBody, "5xx": errorBody } as const;
