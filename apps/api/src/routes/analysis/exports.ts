/** Per-decision exports: CSV and JSON, streamed (one row per example x item; never a key). */

import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { type AnalysisData, type SplitChoice, splitsOf } from "../../analysis/data.js";
import { csvHeader, csvLine, exportRow } from "../../analysis/export.js";
import type { PredictionFilter, PredictionRow } from "../../storage/types.js";
import { errors, exportQuery, runParams } from "./schemas.js";

interface ExportQuery {
  item?: string;
  split?: SplitChoice;
}

/** Registers GET /api/runs/:id/export.csv and /api/runs/:id/export.json. */
export function exportRoutes(app: FastifyInstance, data: AnalysisData): void {
  /** The run, the filter of its rows to export (every item unless one is named) and the split. */
  async function rowsOf(id: string, q: ExportQuery): Promise<{ runId: string; filter: PredictionFilter }> {
    const loaded = await data.run(id);
    const item = q.item === undefined ? undefined : data.spec(loaded, q.item).name;
    const splits = splitsOf(q.split ?? "all");
    return {
      runId: loaded.run.id,
      filter: { ...(item ? { item } : {}), ...(splits ? { split: splits } : {}) },
    };
  }

  /**
   * Rows in run order, each example's items together (the order of `listPredictions`): one pass over the run, a
   * page in memory at a time, each stored answer parsed once whatever its number of items.
   */
  async function* stream(
    runId: string,
    filter: PredictionFilter,
    line: (r: PredictionRow, first: boolean) => string,
    head: string,
    tail: string,
  ): AsyncGenerator<string> {
    yield head;
    let first = true;
    let chunk = "";
    for await (const page of data.storage.predictionPages(runId, filter)) {
      for (const r of page) {
        chunk += line(r, first);
        first = false;
        if (chunk.length > 65536) {
          yield chunk;
          chunk = "";
        }
      }
    }
    if (chunk) yield chunk;
    yield tail;
  }

  app.get<{ Params: { id: string }; Querystring: ExportQuery }>(
    "/api/runs/:id/export.csv",
    {
      schema: {
        tags: ["exports"],
        summary: "Every decision as CSV (one row per example x item)",
        params: runParams,
        querystring: exportQuery,
        response: { "4xx": errors["4xx"], "5xx": errors["5xx"] },
      },
    },
    async (req, reply) => {
      const { runId, filter } = await rowsOf(req.params.id, req.query);
      reply.header("content-type", "text/csv; charset=utf-8");
      reply.header("content-disposition", `attachment; filename="${runId}.csv"`);
      return reply.send(Readable.from(stream(runId, filter, (r) => csvLine(exportRow(r)), csvHeader(), "")));
    },
  );

  app.get<{ Params: { id: string }; Querystring: ExportQuery }>(
    "/api/runs/:id/export.json",
    {
      schema: {
        tags: ["exports"],
        summary: "Every decision as a JSON array (one object per example x item)",
        params: runParams,
        querystring: exportQuery,
        response: { "4xx": errors["4xx"], "5xx": errors["5xx"] },
      },
    },
    async (req, reply) => {
      const { runId, filter } = await rowsOf(req.params.id, req.query);
      reply.header("content-type", "application/json; charset=utf-8");
      reply.header("content-disposition", `attachment; filename="${runId}.json"`);
      return reply.send(
        Readable.from(
          stream(
            runId,
            filter,
            (r, first) => `${first ? "" : ",\n"}${JSON.stringify(exportRow(r))}`,
            "[\n",
            "\n]\n",
          ),
        ),
      );
    },
  );
}
