/** Calibrations: fit (every candidate compared), list, get, the file download, import, and checking a run. */

import { type CalibrationFile, validateCalibrationFile } from "@decision-workbench/calibration";
import { Type } from "typebox";
import type { AnalysisData } from "../../analysis/data.js";
import { ApiError, badRequest, notFound } from "../../errors.js";
import {
  type Calibration,
  CalibrationFileSchema,
  Calibration as CalibrationSchema,
  CalibrationsQuery,
  CheckRequest,
  FitRequest,
  RunCheck,
} from "../../shapes/calibrations.js";
import { errorResponses, IdParams } from "../../shapes/common.js";
import type { TypedApp } from "../context.js";
import { checkLoadedRun, fitRun, newCalibrationId } from "./fit-run.js";

const tags = ["calibrations"];

function invalidFile(errs: { path: string; message: string }[]): ApiError {
  return new ApiError(
    400,
    "invalid_calibration_file",
    `the calibration file is not valid: ${errs
      .slice(0, 5)
      .map((e) => `${e.path}: ${e.message}`)
      .join("; ")}${errs.length > 5 ? `; and ${errs.length - 5} more` : ""}`,
    errs.map((e) => ({ path: e.path, message: e.message })),
  );
}

/** A stored Calibration payload; one stored before people had tokens has no createdBy: nobody's. */
function calibrationOf(payload: Record<string, unknown>): Calibration {
  const c = payload as Calibration;
  return c.createdBy === undefined ? { ...c, createdBy: null } : c;
}

/** Registers the calibration routes. */
export function calibrationRoutes(app: TypedApp, data: AnalysisData): void {
  const { storage } = data;

  async function mustGetCalibration(id: string): Promise<Calibration> {
    const row = await storage.getCalibration(id);
    if (!row) throw notFound("calibration", id, "list them with GET /api/calibrations");
    return calibrationOf(row.payload);
  }

  app.post(
    "/api/runs/:id/calibrations",
    {
      schema: {
        tags,
        summary:
          "Fit calibrators on one split and evaluate on another (or cross-fit), every candidate compared",
        params: IdParams,
        body: FitRequest,
        response: { 201: CalibrationSchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      const loaded = await data.run(req.params.id);
      const calibration = await fitRun(data, loaded, req.body ?? {}, req.actor);
      await storage.saveCalibration({
        id: calibration.id,
        runId: loaded.run.id,
        createdAt: calibration.createdAt,
        payload: calibration,
      });
      return reply.code(201).send(calibration);
    },
  );

  app.get(
    "/api/calibrations",
    {
      schema: {
        tags,
        summary: "List calibrations, newest first",
        querystring: CalibrationsQuery,
        response: { 200: Type.Array(CalibrationSchema), ...errorResponses },
      },
    },
    async (req) =>
      (await storage.listCalibrations({ runId: req.query.runId })).map((r) => calibrationOf(r.payload)),
  );

  app.get(
    "/api/calibrations/:id",
    {
      schema: {
        tags,
        summary: "One calibration",
        params: IdParams,
        response: { 200: CalibrationSchema, ...errorResponses },
      },
    },
    async (req) => mustGetCalibration(req.params.id),
  );

  app.get(
    "/api/calibrations/:id/file",
    {
      schema: {
        tags,
        summary: "The calibration file (decision-workbench/calibration@1), as a download",
        params: IdParams,
        response: { 200: CalibrationFileSchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      const c = await mustGetCalibration(req.params.id);
      reply.header("content-disposition", `attachment; filename="calibration-${c.id}.json"`);
      return c.file;
    },
  );

  app.post(
    "/api/calibrations/import",
    {
      schema: {
        tags,
        summary: "Import a calibration file",
        body: CalibrationFileSchema,
        response: { 201: CalibrationSchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      const v = validateCalibrationFile(req.body);
      if (!v.ok) throw invalidFile(v.errors);
      const createdAt = new Date().toISOString();
      const calibration: Calibration = {
        id: newCalibrationId(),
        runId: null,
        createdAt,
        file: v.file,
        candidates: {},
        before: {},
        after: {},
        skipped: [],
        imported: true,
        createdBy: req.actor,
      };
      await storage.saveCalibration({
        id: calibration.id,
        runId: null,
        createdAt,
        payload: calibration,
      });
      return reply.code(201).send(calibration);
    },
  );

  app.post(
    "/api/runs/:id/check",
    {
      schema: {
        tags,
        summary:
          "Check a run against a calibration: served model unchanged, calibrated ECE and answered error in their intervals",
        params: IdParams,
        body: CheckRequest,
        response: { 200: RunCheck, ...errorResponses },
      },
    },
    async (req) => {
      const b = req.body ?? {};
      if ((b.calibrationId === undefined) === (b.file === undefined)) {
        throw badRequest(
          'give either "calibrationId" (a stored calibration) or "file" (a calibration file), not both',
        );
      }
      let file: CalibrationFile;
      if (b.calibrationId !== undefined) file = (await mustGetCalibration(b.calibrationId)).file;
      else {
        const v = validateCalibrationFile(b.file);
        if (!v.ok) throw invalidFile(v.errors);
        file = v.file;
      }
      const loaded = await data.run(req.params.id);
      return checkLoadedRun(data, loaded, file, { split: b.split, bins: b.bins });
    },
  );
}
