/** Reports, the items endpoint and report.json. */

import { NOT_STATED } from "@decision-workbench/datasets";
import { type AnalysisData, defaultSplit } from "../../analysis/data.js";
import { reasoningText } from "../../analysis/export.js";
import { correctness, selectRows } from "../../analysis/items.js";
import { rowProbabilities, SPLIT_NAMES } from "../../analysis/matrix.js";
import { errorResponses, IdParams } from "../../shapes/common.js";
import { ITEMS_PAGE } from "../../shapes/limits.js";
import {
  type ItemReport,
  ItemReport as ItemReportSchema,
  type ItemRow,
  ItemsPage,
  ItemsQuery,
  type ReportQuery,
  ReportQuery as ReportQuerySchema,
  RunReport,
  RunReportQuery,
} from "../../shapes/reports.js";
import type { TypedApp } from "../context.js";

const tags = ["reports"];

const STATUS = ["answered", "unknown", "escalated"] as const;

/** Registers GET /api/runs/:id/report, /api/runs/:id/report.json and /api/runs/:id/items. */
export function reportRoutes(app: TypedApp, data: AnalysisData): void {
  const report = async (runId: string, q: ReportQuery): Promise<ItemReport> =>
    data.report(await data.run(runId), q);

  app.get(
    "/api/runs/:id/report",
    {
      schema: {
        tags,
        summary:
          "One item's report: metrics with bias-aware CIs and their methods, the consistency p-value, every rate as x of n with a Wilson interval, bins, per-option scores, histogram, curves",
        params: IdParams,
        querystring: ReportQuerySchema,
        response: { 200: ItemReportSchema, ...errorResponses },
      },
    },
    async (req) => report(req.params.id, req.query),
  );

  app.get(
    "/api/runs/:id/report.json",
    {
      schema: {
        tags: ["exports"],
        summary: "Every item's report, as a download",
        params: IdParams,
        querystring: RunReportQuery,
        response: { 200: RunReport, ...errorResponses },
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

  app.get(
    "/api/runs/:id/items",
    {
      schema: {
        tags,
        summary:
          "The run's decisions on one item, filtered and paged, with state, probabilities and reasoning",
        params: IdParams,
        querystring: ItemsQuery,
        response: { 200: ItemsPage, ...errorResponses },
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
      const limit = q.limit ?? ITEMS_PAGE.default;
      const page = selected.slice(offset, offset + limit);
      const ids = page.map((i) => d.exampleIds.at(i));
      const [states, stored] = await Promise.all([
        data.storage.getStates(loaded.run.dataset, ids),
        data.storage.predictionsFor(loaded.run.id, spec.name, ids),
      ]);
      const rows: ItemRow[] = page.map((i, t) => {
        const status = STATUS[d.status[i]];
        const p = stored.get(ids[t]);
        const reason = p?.reason && p.reason !== NOT_STATED ? p.reason : null;
        const served = d.served[i];
        return {
          exampleId: ids[t],
          split: SPLIT_NAMES[d.split[i]],
          state: states.get(ids[t]) ?? null,
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
