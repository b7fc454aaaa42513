/** GET /api/compare: two or more runs on the same dataset. */

import { type CompareRun, compareItem, flippedAnswers } from "../../analysis/compare.js";
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
          "Compare runs on one item: each run's metrics and their changes against the first run (the baseline) with CIs (methods named), overlaid bins, a page of the flipped answers with each run's confidence",
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
      ].join("|");
      const runs: CompareRun[] = [];
      for (const l of loaded) {
        const d = await data.itemSplit(l, data.spec(l, spec.name), split);
        runs.push({ id: l.run.id, model: l.run.model, servedBy: servedModels(d), data: d });
      }
      // the bootstrap does not depend on the page of flipped answers: paging reuses it
      const compared = await data.cached(key, () =>
        compareItem(runs, {
          split: splitsOf(split) ? split : "all",
          bins: q.bins,
          resamples: q.resamples,
          limit: 0,
        }),
      );
      return {
        ...compared,
        flipped: flippedAnswers(runs, { offset: q.offset, limit: q.limit, positions: true }),
      };
    },
  );
}
