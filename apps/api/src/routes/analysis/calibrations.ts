/** Calibrations: fit (every candidate compared), list, get, the file download, import, and checking a run. */

import { type CalibrationFile, validateCalibrationFile } from "@decision-workbench/calibration";
import type { FastifyInstance } from "fastify";
import type { AnalysisData, SplitChoice } from "../../analysis/data.js";
import { ApiError, badRequest, notFound } from "../../errors.js";
import { type Calibration, checkLoadedRun, type FitRequest, fitRun, newCalibrationId } from "./fit-run.js";
import { calibrationsQuery, checkBody, errors, fitBody, payload, runParams } from "./schemas.js";

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

/** Registers the calibration routes. */
export function calibrationRoutes(app: FastifyInstance, data: AnalysisData): void {
  const { storage } = data;

  async function mustGetCalibration(id: string): Promise<Calibration> {
    const row = await storage.getCalibration(id);
    if (!row) throw notFound("calibration", id, "list them with GET /api/calibrations");
    return row.payload as unknown as Calibration;
  }

  app.post<{ Params: { id: string }; Body: FitRequest }>(
    "/api/runs/:id/calibrations",
    {
      schema: {
        tags,
        summary:
          "Fit calibrators on one split and evaluate on another (or cross-fit), every candidate compared",
        params: runParams,
        body: fitBody,
        response: { 201: payload("Calibration (API.md)"), ...errors },
      },
    },
    async (req, reply) => {
      const loaded = await data.run(req.params.id);
      const calibration = await fitRun(data, loaded, req.body ?? {});
      await storage.saveCalibration({
        id: calibration.id,
        runId: loaded.run.id,
        createdAt: calibration.createdAt,
        payload: calibration as unknown as Record<string, unknown>,
      });
      return reply.code(201).send(calibration);
    },
  );

  app.get<{ Querystring: { runId?: string } }>(
    "/api/calibrations",
    {
      schema: {
        tags,
        summary: "List calibrations, newest first",
        querystring: calibrationsQuery,
        response: { 200: { type: "array", items: payload("Calibration") }, ...errors },
      },
    },
    async (req) => (await storage.listCalibrations({ runId: req.query.runId })).map((r) => r.payload),
  );

  app.get<{ Params: { id: string } }>(
    "/api/calibrations/:id",
    {
      schema: {
        tags,
        summary: "One calibration",
        params: runParams,
        response: { 200: payload("Calibration"), ...errors },
      },
    },
    async (req) => mustGetCalibration(req.params.id),
  );

  app.get<{ Params: { id: string } }>(
    "/api/calibrations/:id/file",
    {
      schema: {
        tags,
        summary: "The calibration file (decision-workbench/calibration@1), as a download",
        params: runParams,
        response: { 200: payload("CalibrationFile"), ...errors },
      },
    },
    async (req, reply) => {
      const c = await mustGetCalibration(req.params.id);
      reply.header("content-disposition", `attachment; filename="calibration-${c.id}.json"`);
      return c.file;
    },
  );

  app.post<{ Body: unknown }>(
    "/api/calibrations/import",
    {
      schema: {
        tags,
        summary: "Import a calibration file",
        body: {
          type: "object",
          additionalProperties: true,
          description: "a decision-workbench/calibration@1 file",
        },
        response: { 201: payload("Calibration"), ...errors },
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
      };
      await storage.saveCalibration({
        id: calibration.id,
        runId: null,
        createdAt,
        payload: calibration as unknown as Record<string, unknown>,
      });
      return reply.code(201).send(calibration);
    },
  );

  app.post<{
    Params: { id: string };
    Body: { calibrationId?: string; file?: unknown; split?: SplitChoice; bins?: number };
  }>(
    "/api/runs/:id/check",
    {
      schema: {
        tags,
        summary:
          "Check a run against a calibration: served model unchanged, calibrated ECE and answered error in their intervals",
        params: runParams,
        body: checkBody,
        response: { 200: payload("CheckReport"), ...errors },
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
