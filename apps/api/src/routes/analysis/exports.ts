/** Per-decision exports: CSV and JSON, streamed (one row per example x item; never a key). */

import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { type AnalysisData, type SplitChoice, splitsOf } from "../../analysis/data.js";
import { csvHeader, csvLine, exportRow } from "../../analysis/export.js";
import type { PredictionRow } from "../../storage/types.js";
import { errors, exportQuery, runParams } from "./schemas.js";

interface ExportQuery {
  item?: string;
  split?: SplitChoice;
}

/** Registers GET /api/runs/:id/export.csv and /api/runs/:id/export.json. */
export function exportRoutes(app: FastifyInstance, data: AnalysisData): void {
  async function rowsOf(
    id: string,
    q: ExportQuery,
  ): Promise<{ runId: string; items: string[]; splits: string[] | null }> {
    const loaded = await data.run(id);
    const items = q.item === undefined ? loaded.specs.map((s) => s.name) : [data.spec(loaded, q.item).name];
    return { runId: loaded.run.id, items, splits: splitsOf(q.split ?? "all") };
  }

  /** Rows item by item, so only one item's predictions are in memory at a time. */
  async function* stream(
    runId: string,
    items: string[],
    splits: string[] | null,
    line: (r: PredictionRow, first: boolean) => string,
    head: string,
    tail: string,
  ): AsyncGenerator<string> {
    yield head;
    let first = true;
    for (const item of items) {
      const filter = { item, ...(splits ? { split: splits as PredictionRow["split"][] } : {}) };
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
    }
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
      const { runId, items, splits } = await rowsOf(req.params.id, req.query);
      reply.header("content-type", "text/csv; charset=utf-8");
      reply.header("content-disposition", `attachment; filename="${runId}.csv"`);
      return reply.send(
        Readable.from(stream(runId, items, splits, (r) => csvLine(exportRow(r)), csvHeader(), "")),
      );
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
      const { runId, items, splits } = await rowsOf(req.params.id, req.query);
      reply.header("content-type", "application/json; charset=utf-8");
      reply.header("content-disposition", `attachment; filename="${runId}.json"`);
      return reply.send(
        Readable.from(
          stream(
            runId,
            items,
            splits,
            (r, first) => `${first ? "" : ",\n"}${JSON.stringify(exportRow(r))}`,
            "[\n",
            "\n]\n",
          ),
        ),
      );
    },
  );
}
