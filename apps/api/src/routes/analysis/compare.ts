/** GET /api/compare: two or more runs on the same dataset. */

import { type CompareRun, compareItem } from "../../analysis/compare.js";
import { type AnalysisData, type LoadedRun, splitsOf } from "../../analysis/data.js";
import { servedModels } from "../../analysis/matrix.js";
import { badRequest } from "../../errors.js";
import { CompareQuery, Comparison } from "../../shapes/calibrations.js";
import { errorResponses } from "../../shapes/common.js";
import { COMPARE_RUNS } from "../../shapes/limits.js";
import type { TypedApp } from "../context.js";

/** Registers GET /api/compare. */
export function compareRoutes(app: TypedApp, data: AnalysisData): void {
  app.get(
    "/api/compare",
    {
      schema: {
        tags: ["compare"],
        summary:
          "Compare runs on one item: each run's metrics and their changes with CIs (methods named), overlaid bins, flipped answers",
        querystring: CompareQuery,
        response: { 200: Comparison, ...errorResponses },
      },
    },
    async (req) => {
      const q = req.query;
      const ids = q.runs.split(",").map((s) => s.trim());
      if (new Set(ids).size !== ids.length)
        throw badRequest(`runs lists a run twice (${q.runs}); name each run once`);
      if (ids.length > COMPARE_RUNS.max)
        throw badRequest(`compare at most ${COMPARE_RUNS.max} runs at once, got ${ids.length}`);
      const loaded: LoadedRun[] = [];
      for (const id of ids) loaded.push(await data.run(id));
      const datasets = new Set(loaded.map((l) => l.run.dataset));
      if (datasets.size > 1) {
        throw badRequest(
          `compare runs on the same dataset; these runs use ${loaded.map((l) => `${l.run.id}: ${l.run.dataset}`).join(", ")}`,
        );
      }
      const spec = data.spec(loaded[0], q.item);
      for (const l of loaded) data.spec(l, spec.name);
      const split = q.split ?? (loaded.every((l) => l.run.splits.includes("test")) ? "test" : "all");
      const key = [
        "compare",
        ...loaded.map((l) => `${l.run.id}@${l.version}`),
        spec.name,
        split,
        q.bins ?? 15,
        q.resamples ?? "auto",
        q.offset ?? 0,
        q.limit ?? 200,
      ].join("|");
      return data.cached(key, async () => {
        const runs: CompareRun[] = [];
        for (const l of loaded) {
          const d = await data.itemSplit(l, data.spec(l, spec.name), split);
          runs.push({ id: l.run.id, model: l.run.model, servedBy: servedModels(d), data: d });
        }
        return compareItem(runs, {
          split: splitsOf(split) ? split : "all",
          bins: q.bins,
          resamples: q.resamples,
          offset: q.offset,
          limit: q.limit,
        });
      });
    },
  );
}
