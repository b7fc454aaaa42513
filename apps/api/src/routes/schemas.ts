/**
 * The names the upload route and its input schema still import from here: the shapes live in src/shapes.
 * (routes/upload.ts and catalog/upload-input.ts can import them from there, and this file go.)
 */

export { errorResponses } from "../shapes/common.js";
export { DatasetSummary as datasetSummarySchema } from "../shapes/datasets.js";

/** A JSON object with anything inside. */
export const anyObject = { type: "object", additionalProperties: true } as const;
