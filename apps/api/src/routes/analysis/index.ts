/** The analysis routes: reports, items, calibrations (fit, file, import, check), compare and exports. */

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
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
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  reportRoutes(typed, data);
  calibrationRoutes(typed, data);
  compareRoutes(typed, data);
  exportRoutes(typed, data);
};
