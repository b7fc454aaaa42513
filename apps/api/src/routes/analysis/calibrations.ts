/** Calibrations: fit (every candidate compared), list, get, the file download, import, and checking a run. */

import {
  type CalibrationFile,
  type CalibrationSource,
  type Method,
  NOTHING_LEARNED,
  NothingLearnedError,
  validateCalibrationFile,
} from "@decision-workbench/calibration";
import type { Split } from "@decision-workbench/datasets";
import type { FastifyInstance } from "fastify";
import type { Bin } from "../../analysis/bins.js";
import { type Candidate, calibrationFile, fitItem, type ItemFit } from "../../analysis/calibrate.js";
import { checkRun } from "../../analysis/check.js";
import { type ItemData, restrictSplits, servedModels } from "../../analysis/matrix.js";
import { ApiError, badRequest, notFound } from "../../errors.js";
import type { CalibrationRow } from "../../storage/types.js";
import { type AnalysisData, defaultSplit, type LoadedRun, type SplitChoice, splitsOf } from "./loader.js";
import { calibrationsQuery, checkBody, errors, fitBody, payload, runParams } from "./schemas.js";

const tags = ["calibrations"];

/** The stored and returned calibration (API.md `Calibration`). */
export interface Calibration {
  id: string;
  runId: string | null;
  createdAt: string;
  file: CalibrationFile;
  candidates: Record<string, Candidate[]>;
  before: Record<string, Bin[]>;
  after: Record<string, Bin[]>;
  /** How it was fitted (absent for an imported file). */
  fit?: {
    fitSplit: Split;
    evalSplit: Split | "crossfit";
    select: "nll" | "brier";
    targetRisk: number | null;
    conservative: boolean;
    n: Record<string, { fit: number; eval: number }>;
  };
  /** Items that could not be fitted, and why. */
  skipped: { item: string; reason: string }[];
  imported: boolean;
}

interface FitBody {
  item?: string;
  fitSplit?: Split;
  evalSplit?: Split | "crossfit";
  methods?: Method[] | "auto";
  targetRisk?: number;
  conservative?: boolean;
  select?: "nll" | "brier";
  bins?: number;
  resamples?: number;
}

function newCalibrationId(): string {
  return `cal_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
}

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

  async function itemsOn(
    loaded: LoadedRun,
    names: string[],
    split: SplitChoice,
  ): Promise<Map<string, ItemData>> {
    const out = new Map<string, ItemData>();
    for (const spec of loaded.specs) {
      if (names.includes(spec.name)) out.set(spec.name, await data.itemSplit(loaded, spec, split));
    }
    return out;
  }

  app.post<{ Params: { id: string }; Body: FitBody }>(
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
      const b = req.body ?? {};
      const loaded = await data.run(req.params.id);
      const fitSplit = b.fitSplit ?? "calibration";
      const evalSplit = b.evalSplit ?? "test";
      if (fitSplit === evalSplit) {
        throw badRequest(
          `fitSplit and evalSplit are both ${fitSplit}; evaluate on another split, or use evalSplit "crossfit" to cross-fit on ${fitSplit}`,
        );
      }
      for (const s of [fitSplit, evalSplit]) {
        if (s !== "crossfit" && !loaded.run.splits.includes(s)) {
          throw badRequest(
            `run ${loaded.run.id} has no ${s} split (it ran ${loaded.run.splits.join(", ")}); choose one of those${s === evalSplit ? ', or evalSplit "crossfit"' : ""}`,
          );
        }
      }
      const specs = b.item === undefined ? loaded.specs : [data.spec(loaded, b.item)];
      const fits: Record<string, ItemFit> = {};
      const skipped: Calibration["skipped"] = [];
      for (const spec of specs) {
        const all = await data.itemData(loaded, spec);
        const fit = restrictSplits(all, [fitSplit]);
        const evaluation = evalSplit === "crossfit" ? null : restrictSplits(all, [evalSplit]);
        try {
          fits[spec.name] = fitItem(fit, evaluation, {
            methods: b.methods,
            select: b.select,
            targetRisk: b.targetRisk,
            conservative: b.conservative,
            bins: b.bins,
            resamples: b.resamples,
          });
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          if (b.item !== undefined) {
            if (err instanceof NothingLearnedError) {
              throw new ApiError(
                422,
                "nothing_learned",
                `item ${spec.name} on the ${fitSplit} split: ${NOTHING_LEARNED} (no answered or Unknown predictions with a gold label)`,
              );
            }
            if (err instanceof RangeError)
              throw new ApiError(422, "cannot_fit", `item ${spec.name}: ${message}`);
            throw err;
          }
          if (!(err instanceof RangeError || err instanceof NothingLearnedError)) throw err;
          skipped.push({ item: spec.name, reason: message });
        }
      }
      if (Object.keys(fits).length === 0) {
        throw new ApiError(
          422,
          "nothing_learned",
          `no item could be fitted on the ${fitSplit} split: ${skipped.map((s) => `${s.item}: ${s.reason}`).join("; ")}`,
        );
      }
      const all = await Promise.all(
        Object.keys(fits).map((name) => data.itemData(loaded, data.spec(loaded, name))),
      );
      const served = [...new Set(all.flatMap((d) => servedModels(d)))].sort();
      const r = loaded.run;
      const source: CalibrationSource = {
        fingerprint: r.fingerprint,
        endpoint: r.endpoint,
        model: r.model,
        served_by: served,
        dataset: { name: r.dataset, sha256: r.datasetHash },
        fit_split: fitSplit,
        eval_split: evalSplit,
      };
      const createdAt = new Date().toISOString();
      const calibration: Calibration = {
        id: newCalibrationId(),
        runId: r.id,
        createdAt,
        file: calibrationFile(source, fits, createdAt.replace(/\.\d{3}Z$/, "Z")),
        candidates: Object.fromEntries(Object.entries(fits).map(([k, f]) => [k, f.candidates])),
        before: Object.fromEntries(Object.entries(fits).map(([k, f]) => [k, f.before])),
        after: Object.fromEntries(Object.entries(fits).map(([k, f]) => [k, f.after])),
        fit: {
          fitSplit,
          evalSplit,
          select: b.select ?? "nll",
          targetRisk: b.targetRisk ?? null,
          conservative: b.conservative ?? false,
          n: Object.fromEntries(Object.entries(fits).map(([k, f]) => [k, f.n])),
        },
        skipped,
        imported: false,
      };
      const row: CalibrationRow = {
        id: calibration.id,
        runId: r.id,
        createdAt,
        payload: calibration as unknown as Record<string, unknown>,
      };
      await storage.saveCalibration(row);
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
      const split = b.split ?? defaultSplit(loaded.run);
      const items = await itemsOn(loaded, Object.keys(file.questions), split);
      const served = [...new Set([...items.values()].flatMap((d) => servedModels(d)))].sort();
      try {
        const report = checkRun(file, { fingerprint: loaded.run.fingerprint, servedBy: served }, items, {
          bins: b.bins,
        });
        return { ...report, runId: loaded.run.id, split: splitsOf(split) ? split : "all" };
      } catch (err) {
        if (err instanceof RangeError) throw new ApiError(422, "calibration_mismatch", err.message);
        throw err;
      }
    },
  );
}
