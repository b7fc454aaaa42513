/** The analysis routes: reports, items, calibrations (fit, file, import, check), compare and exports. */

import type { FastifyPluginAsync } from "fastify";
import { analysisData } from "../../analysis/data.js";
import type { Storage } from "../../storage/types.js";
import { calibrationRoutes } from "./calibrations.js";
import { compareRoutes } from "./compare.js";
import { exportRoutes } from "./exports.js";
import { reportRoutes } from "./reports.js";

/** Registers every analysis route (paths under /api) on the storage given; payloads are cached per run version. */
export const analysisRoutes: FastifyPluginAsync<{ storage: Storage }> = async (app, { storage }) => {
  const data = analysisData(storage);
  reportRoutes(app, data);
  calibrationRoutes(app, data);
  compareRoutes(app, data);
  exportRoutes(app, data);
};

/** Precomputes a finished run's default reports into the routes' cache (call it when a run finishes). */
