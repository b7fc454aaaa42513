/**
 * /api/datasets: bundled datasets and uploads (JSONL or CSV, validated with line numbers on an upload thread:
 * see upload.ts), examples, counts.
 */

import type { FastifyPluginAsync } from "fastify";
import { datasetDetail, deleteDataset, examplesPage, listDatasetSummaries } from "../catalog/catalog.js";
import type { Split } from "../storage/types.js";
import type { AppContext } from "./context.js";
import {
  datasetDetailSchema,
  datasetSummarySchema,
  errorResponses,
  exampleSchema,
  forceQuery,
  splitSchema,
} from "./schemas.js";
import { uploadRoute } from "./upload.js";

const tags = ["datasets"];

/** Largest page of examples. */
export const EXAMPLES_PAGE_MAX = 500;

const nameParams = {
  type: "object",
  properties: { name: { type: "string", minLength: 1, maxLength: 200 } },
  required: ["name"],
  additionalProperties: false,
} as const;

const examplesQuery = {
  type: "object",
  properties: {
    split: splitSchema,
    offset: { type: "integer", minimum: 0 },
    limit: { type: "integer", minimum: 1, maximum: EXAMPLES_PAGE_MAX },
    q: { type: "string", maxLength: 500 },
  },
  additionalProperties: false,
} as const;

/** The datasets routes. */
export const datasetRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { storage, engine } = ctx;

  app.get(
    "/api/datasets",
    {
      schema: {
        tags,
        summary: "List datasets (bundled, then uploads)",
        response: { 200: { type: "array", items: datasetSummarySchema }, ...errorResponses },
      },
    },
    async () => listDatasetSummaries(storage),
  );

  app.get<{ Params: { name: string } }>(
    "/api/datasets/:name",
    {
      schema: {
        tags,
        summary: "One dataset: summary, task and label counts per split",
        params: nameParams,
        response: { 200: datasetDetailSchema, ...errorResponses },
      },
    },
    async (req) => datasetDetail(storage, req.params.name),
  );

  app.get<{
    Params: { name: string };
    Querystring: { split?: Split; offset?: number; limit?: number; q?: string };
  }>(
    "/api/datasets/:name/examples",
    {
      schema: {
        tags,
        summary: "A page of examples",
        params: nameParams,
        querystring: examplesQuery,
        response: {
          200: {
            type: "object",
            properties: { total: { type: "integer" }, examples: { type: "array", items: exampleSchema } },
            required: ["total", "examples"],
          },
          ...errorResponses,
        },
      },
    },
    async (req) => {
      const { split, offset = 0, limit = 50, q } = req.query;
      return examplesPage(storage, req.params.name, { split, offset, limit, q: q || undefined });
    },
  );

  await app.register(uploadRoute, { ctx });

  app.delete<{ Params: { name: string }; Querystring: { force?: boolean } }>(
    "/api/datasets/:name",
    {
      schema: {
        tags,
        summary: "Delete an upload (409 while runs use it, unless ?force=true, which deletes them too)",
        params: nameParams,
        querystring: forceQuery,
        response: { 204: { type: "null" }, ...errorResponses },
      },
    },
    async (req, reply) => {
      await deleteDataset(storage, req.params.name, req.query.force === true, (id) => engine.delete(id));
      return reply.code(204).send();
    },
  );
};
