/**
 * /api/datasets: bundled datasets and uploads (JSONL or CSV, validated with line numbers on an upload thread:
 * see upload.ts), examples, counts.
 */

import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { datasetDetail, deleteDataset, examplesPage, listDatasetSummaries } from "../catalog/catalog.js";
import { errorResponses, ForceQuery, NoContent } from "../shapes/common.js";
import { DatasetDetail, DatasetSummary, ExamplePage, ExamplesQuery, NameParams } from "../shapes/datasets.js";
import { EXAMPLES_PAGE } from "../shapes/limits.js";
import type { AppContext } from "./context.js";
import { uploadRoute } from "./upload.js";

const tags = ["datasets"];

/** The datasets routes. */
export const datasetRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { storage, engine } = ctx;

  app.get(
    "/api/datasets",
    {
      schema: {
        tags,
        summary: "List datasets (bundled, then uploads)",
        response: { 200: Type.Array(DatasetSummary), ...errorResponses },
      },
    },
    async () => listDatasetSummaries(storage),
  );

  app.get(
    "/api/datasets/:name",
    {
      schema: {
        tags,
        summary: "One dataset: summary, task and label counts per split",
        params: NameParams,
        response: { 200: DatasetDetail, ...errorResponses },
      },
    },
    async (req) => datasetDetail(storage, req.params.name),
  );

  app.get(
    "/api/datasets/:name/examples",
    {
      schema: {
        tags,
        summary: "A page of examples",
        params: NameParams,
        querystring: ExamplesQuery,
        response: { 200: ExamplePage, ...errorResponses },
      },
    },
    async (req) => {
      const { split, offset = 0, limit = EXAMPLES_PAGE.default, q } = req.query;
      return examplesPage(storage, req.params.name, { split, offset, limit, q: q || undefined });
    },
  );

  await app.register(uploadRoute, { ctx });

  app.delete(
    "/api/datasets/:name",
    {
      schema: {
        tags,
        summary: "Delete an upload (409 while runs use it, unless ?force=true, which deletes them too)",
        params: NameParams,
        querystring: ForceQuery,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (req, reply) => {
      await deleteDataset(storage, req.params.name, req.query.force === true, (id) => engine.delete(id));
      return reply.code(204).send(null);
    },
  );
};
