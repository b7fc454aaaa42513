/** /api/datasets: bundled datasets and uploads (JSONL or CSV, validated with line numbers), examples, counts. */

import type { FastifyPluginAsync } from "fastify";
import {
  datasetDetail,
  deleteDataset,
  examplesPage,
  listDatasetSummaries,
  type UploadInput,
  uploadDataset,
} from "../catalog/catalog.js";
import { badRequest } from "../errors.js";
import type { Split } from "../storage/types.js";
import type { AppContext } from "./context.js";
import { parseMultipart, uploadFromParts } from "./multipart.js";
import {
  anyObject,
  datasetDetailSchema,
  datasetSummarySchema,
  errorResponses,
  exampleSchema,
  forceQuery,
  splitSchema,
} from "./schemas.js";

const tags = ["datasets"];

/** Largest upload body: the 100 MiB file limit plus JSON escaping headroom. */
export const UPLOAD_BODY_LIMIT = 160 * 1024 * 1024;

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

const uploadSchema = {
  type: "object",
  properties: {
    task: { ...anyObject, description: "the task definition (name, description, provenance, items)" },
    format: { type: "string", enum: ["jsonl", "csv"] },
    content: { type: "string", description: "the file's text" },
  },
  required: ["task", "format", "content"],
  additionalProperties: false,
} as const;

/** The datasets routes. */
export const datasetRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { storage, engine } = ctx;

  app.addContentTypeParser(
    "multipart/form-data",
    { parseAs: "buffer", bodyLimit: UPLOAD_BODY_LIMIT },
    (req, body, done) => {
      try {
        done(null, uploadFromParts(parseMultipart(body as Buffer, String(req.headers["content-type"]))));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );

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

  app.post<{ Body: UploadInput }>(
    "/api/datasets",
    {
      bodyLimit: UPLOAD_BODY_LIMIT,
      schema: {
        tags,
        summary: "Upload a dataset (JSON body, or multipart with task, format and file)",
        body: uploadSchema,
        response: { 201: datasetSummarySchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      if (req.body.content.length === 0)
        throw badRequest("body.content is empty; send the JSONL or CSV text");
      return reply.code(201).send(await uploadDataset(storage, req.body));
    },
  );

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
