/** Reports, the items endpoint and report.json. */

import { NOT_STATED } from "@decision-workbench/datasets";
import type { FastifyInstance } from "fastify";
import { type AnalysisData, defaultSplit, type ReportQuery, type SplitChoice } from "../../analysis/data.js";
import { reasoningText } from "../../analysis/export.js";
import { correctness, type ItemsFilter, selectRows } from "../../analysis/items.js";
import { rowProbabilities, SPLIT_NAMES } from "../../analysis/matrix.js";
import type { ItemReport } from "../../analysis/report.js";
import { errors, itemsQuery, payload, reportAllQuery, reportQuery, runParams } from "./schemas.js";

const tags = ["reports"];

const STATUS = ["answered", "unknown", "escalated"] as const;

/** One row of the items endpoint. */
export interface ItemRow {
  exampleId: string;
  split: string;
  state: unknown;
  gold: string | string[] | null;
  status: string;
  answer: string | string[] | null;
  confidence: number | null;
  probabilities: Record<string, number> | null;
  /** 1 right, 0 wrong, null not measured (escalated, no output or no gold). */
  correct: boolean | null;
  reason: string | null;
  /** The reasoning text (multi-label: one "option: text" paragraph per option), or null. */
  reasoning: string | null;
  servedBy: string | null;
}

/** Registers GET /api/runs/:id/report, /api/runs/:id/report.json and /api/runs/:id/items. */
export function reportRoutes(app: FastifyInstance, data: AnalysisData): void {
  const report = async (runId: string, q: ReportQuery): Promise<ItemReport> =>
    data.report(await data.run(runId), q);

  app.get<{ Params: { id: string }; Querystring: ReportQuery }>(
    "/api/runs/:id/report",
    {
      schema: {
        tags,
        summary:
          "One item's report: metrics with bias-aware CIs and their methods, the consistency p-value, every rate as x of n with a Wilson interval, bins, per-option scores, histogram, curves",
        params: runParams,
        querystring: reportQuery,
        response: { 200: payload("ItemReport (API.md)"), ...errors },
      },
    },
    async (req) => report(req.params.id, req.query),
  );

  app.get<{ Params: { id: string }; Querystring: ReportQuery }>(
    "/api/runs/:id/report.json",
    {
      schema: {
        tags: ["exports"],
        summary: "Every item's report, as a download",
        params: runParams,
        querystring: reportAllQuery,
        response: { 200: payload("{ run, split, items: ItemReport[] }"), ...errors },
      },
    },
    async (req, reply) => {
      const loaded = await data.run(req.params.id);
      const split = req.query.split ?? defaultSplit(loaded.run);
      const items: ItemReport[] = [];
      for (const spec of loaded.specs)
        items.push(await report(req.params.id, { ...req.query, item: spec.name, split }));
      const r = loaded.run;
      reply.header("content-disposition", `attachment; filename="${r.id}-report.json"`);
      return {
        run: {
          id: r.id,
          dataset: r.dataset,
          datasetHash: r.datasetHash,
          endpoint: r.endpoint,
          model: r.model,
          fingerprint: r.fingerprint,
          status: r.status,
          splits: r.splits,
        },
        split,
        items,
      };
    },
  );

  app.get<{
    Params: { id: string };
    Querystring: {
      item?: string;
      split?: SplitChoice;
      filter?: ItemsFilter;
      label?: string;
      offset?: number;
      limit?: number;
    };
  }>(
    "/api/runs/:id/items",
    {
      schema: {
        tags,
        summary:
          "The run's decisions on one item, filtered and paged, with state, probabilities and reasoning",
        params: runParams,
        querystring: itemsQuery,
        response: { 200: payload("{ total, offset, rows: ItemRow[] }"), ...errors },
      },
    },
    async (req) => {
      const q = req.query;
      const loaded = await data.run(req.params.id);
      const spec = data.spec(loaded, q.item);
      const split = q.split ?? "all";
      const d = await data.itemSplit(loaded, spec, split);
      const filter = q.filter ?? "all";
      const at = `${loaded.run.id}|${loaded.version}|${spec.name}|${split}`;
      const correct = await data.cached(`correct|${at}`, () => correctness(d));
      const selected = await data.cached(`items|${at}|${filter}|${q.label ?? ""}`, () =>
        selectRows(d, { filter, label: q.label, correct }),
      );
      const offset = q.offset ?? 0;
      const limit = q.limit ?? 50;
      const page = selected.slice(offset, offset + limit);
      const ids = page.map((i) => d.exampleIds[i]);
      const [states, stored] = await Promise.all([
        data.storage.getStates(loaded.run.dataset, ids),
        data.storage.predictionsFor(loaded.run.id, spec.name, ids),
      ]);
      const rows: ItemRow[] = page.map((i) => {
        const status = STATUS[d.status[i]];
        const p = stored.get(d.exampleIds[i]);
        const reason = p?.reason && p.reason !== NOT_STATED ? p.reason : null;
        const served = d.served[i];
        return {
          exampleId: d.exampleIds[i],
          split: SPLIT_NAMES[d.split[i]],
          state: states.get(d.exampleIds[i]) ?? null,
          gold: p ? p.gold : d.golds[i],
          status,
          answer: p ? p.answer : d.answers[i],
          confidence: Number.isNaN(d.confidence[i]) ? null : d.confidence[i],
          probabilities: rowProbabilities(d, i),
          correct: correct[i] < 0 ? null : correct[i] === 1,
          reason: status === "unknown" ? "not stated" : reason,
          reasoning: reasoningText(p?.record),
          servedBy: served >= 0 ? d.servedNames[served] : null,
        };
      });
      return { total: selected.length, offset, rows };
    },
  );
}
