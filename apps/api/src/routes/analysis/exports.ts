/** Per-decision exports: CSV and JSON, streamed (one row per example x item; never a key). */

import { Readable } from "node:stream";
import type { Static } from "typebox";
import { type AnalysisData, splitsOf } from "../../analysis/data.js";
import { csvHeader, csvLine, exportRow } from "../../analysis/export.js";
import { errorResponses, IdParams } from "../../shapes/common.js";
import { ExportQuery, type ExportRow, exportResponses } from "../../shapes/reports.js";
import type { PredictionFilter, PredictionRow } from "../../storage/types.js";
import type { TypedApp } from "../context.js";

/** A stream of text sent as it is: the documented shape is what its lines hold (never re-serialised). */
const streamed = (chunks: AsyncGenerator<string>) => Readable.from(chunks) as never;
/** A stored decision as exported, checked against the documented row. */
const rowOf = (r: PredictionRow): ExportRow => exportRow(r);

/** Registers GET /api/runs/:id/export.csv and /api/runs/:id/export.json. */
export function exportRoutes(app: TypedApp, data: AnalysisData): void {
  /** The run, the filter of its rows to export (every item unless one is named) and the split. */
  async function rowsOf(
    id: string,
    q: Static<typeof ExportQuery>,
  ): Promise<{ runId: string; filter: PredictionFilter }> {
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

  app.get(
    "/api/runs/:id/export.csv",
    {
      schema: {
        tags: ["exports"],
        summary: "Every decision as CSV (one row per example x item)",
        params: IdParams,
        querystring: ExportQuery,
        response: { 200: exportResponses.csv, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { runId, filter } = await rowsOf(req.params.id, req.query);
      reply.header("content-type", "text/csv; charset=utf-8");
      reply.header("content-disposition", `attachment; filename="${runId}.csv"`);
      return reply.send(streamed(stream(runId, filter, (r) => csvLine(rowOf(r)), csvHeader(), "")));
    },
  );

  app.get(
    "/api/runs/:id/export.json",
    {
      schema: {
        tags: ["exports"],
        summary: "Every decision as a JSON array (one object per example x item)",
        params: IdParams,
        querystring: ExportQuery,
        response: { 200: exportResponses.json, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { runId, filter } = await rowsOf(req.params.id, req.query);
      reply.header("content-type", "application/json; charset=utf-8");
      reply.header("content-disposition", `attachment; filename="${runId}.json"`);
      return reply.send(
        streamed(
          stream(
            runId,
            filter,
            (r, first) => `${first ? "" : ",\n"}${JSON.stringify(rowOf(r))}`,
            "[\n",
            "\n]\n",
          ),
        ),
      );
    },
  );
}
