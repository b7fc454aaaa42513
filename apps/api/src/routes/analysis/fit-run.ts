/** Fitting a run's items and checking a run against a file: shared by the routes and the workbench command. */

import {
  type CalibrationFile,
  type CalibrationSource,
  NOTHING_LEARNED,
  NothingLearnedError,
} from "@decision-workbench/calibration";
import { calibrationFile, fitItem, type ItemFit } from "../../analysis/calibrate.js";
import { checkRun } from "../../analysis/check.js";
import { type AnalysisData, defaultSplit, type LoadedRun, splitsOf } from "../../analysis/data.js";
import { type ItemData, restrictSplits, servedModels } from "../../analysis/matrix.js";
import { crossFitCost } from "../../analysis/selection.js";
import { ApiError, badRequest } from "../../errors.js";
import type { Calibration, FitRequest, RunCheck } from "../../shapes/calibrations.js";
import type { SplitChoice } from "../../shapes/common.js";

/** The tests import the calibration's type from here. */

/** Folds of the cross-fitting that compares candidates (and estimates one-split metrics). */
const FOLDS = 5;

/** A new calibration id. */
export function newCalibrationId(): string {
  return `cal_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
}

/**
 * Fits a run's items (or one) and builds the Calibration payload (not stored); `createdBy`: the person whose token
 * asked for it. Throws ApiError on bad input.
 */
export async function fitRun(
  data: AnalysisData,
  loaded: LoadedRun,
  b: FitRequest,
  createdBy: string | null = null,
): Promise<Calibration> {
  const splits = loaded.run.splits;
  const fitSplit = b.fitSplit ?? (splits.includes("calibration") ? "calibration" : splits[0]);
  const evalSplit = b.evalSplit ?? (splits.includes("test") && fitSplit !== "test" ? "test" : "crossfit");
  const selectionSplit = b.selectionSplit ?? null;
  if (fitSplit === evalSplit) {
    throw badRequest(
      `fitSplit and evalSplit are both ${fitSplit}; evaluate on another split, or use evalSplit "crossfit" to cross-fit on ${fitSplit}`,
    );
  }
  if (selectionSplit !== null && (selectionSplit === fitSplit || selectionSplit === evalSplit)) {
    throw badRequest(
      `selectionSplit ${selectionSplit} is also the ${selectionSplit === fitSplit ? "fit" : "evaluation"} split; it must be a third split (candidates compared on rows that neither fit the calibrator nor report its metrics), or leave it out to cross-fit inside ${fitSplit}`,
    );
  }
  if (selectionSplit !== null && b.method !== undefined && b.method !== "auto") {
    throw badRequest(
      `selectionSplit ${selectionSplit} compares candidates, but method ${b.method} is forced (no selection); leave one of them out`,
    );
  }
  for (const s of [fitSplit, evalSplit, ...(selectionSplit ? [selectionSplit] : [])]) {
    if (s !== "crossfit" && !splits.includes(s)) {
      throw badRequest(
        `run ${loaded.run.id} has no ${s} split (it ran ${splits.join(", ")}); choose one of those${
          s === evalSplit ? ', or evalSplit "crossfit"' : ""
        }`,
      );
    }
  }
  const specs = b.item === undefined ? loaded.specs : [data.spec(loaded, b.item)];
  if (specs.length === 0)
    throw new ApiError(409, "no_predictions", `run ${loaded.run.id} has no items to fit`);
  const fits: Record<string, ItemFit> = {};
  const skipped: Calibration["skipped"] = [];
  const served = new Set<string>();
  for (const spec of specs) {
    const all = await data.itemData(loaded, spec);
    const fit = restrictSplits(all, [fitSplit]);
    const selection = selectionSplit ? restrictSplits(all, [selectionSplit]) : null;
    // read only once the method is final (fitItem calls it after selection)
    const evaluation = evalSplit === "crossfit" ? null : () => restrictSplits(all, [evalSplit]);
    try {
      fits[spec.name] = fitItem(
        fit,
        evaluation,
        {
          method: b.method,
          methods: b.methods,
          select: b.select,
          folds: FOLDS,
          targetRisk: b.targetRisk,
          conservative: b.conservative,
          bins: b.bins,
          resamples: b.resamples,
          names: { fit: fitSplit, ...(selectionSplit ? { selection: selectionSplit } : {}) },
        },
        selection,
      );
      for (const m of servedModels(all)) served.add(m);
    } catch (err) {
      const message =
        err instanceof NothingLearnedError
          ? `${NOTHING_LEARNED} (no answered or Unknown predictions with a gold label on the ${fitSplit} split)`
          : err instanceof Error
            ? err.message
            : String(err);
      if (!(err instanceof RangeError || err instanceof NothingLearnedError)) throw err;
      if (b.item !== undefined) {
        throw new ApiError(
          422,
          err instanceof NothingLearnedError ? "nothing_learned" : "cannot_fit",
          `item ${spec.name}: ${message}`,
        );
      }
      skipped.push({ item: spec.name, reason: message });
    }
  }
  if (Object.keys(fits).length === 0) {
    throw new ApiError(
      422,
      "nothing_learned",
      `no item could be fitted: ${skipped.map((s) => `${s.item}: ${s.reason}`).join("; ")}`,
    );
  }
  const r = loaded.run;
  const source: CalibrationSource = {
    fingerprint: r.fingerprint,
    endpoint: r.endpoint,
    model: r.model,
    served_by: [...served].sort(),
    dataset: { name: r.dataset, sha256: r.datasetHash },
    fit_split: fitSplit,
    eval_split: evalSplit,
  };
  const estimatedBy: ItemFit["estimatedBy"] = evalSplit === "crossfit" ? "cross-fit" : "evaluation split";
  const createdAt = new Date().toISOString();
  const entries = Object.entries(fits);
  return {
    id: newCalibrationId(),
    runId: r.id,
    createdAt,
    file: calibrationFile(source, fits, createdAt.replace(/\.\d{3}Z$/, "Z")),
    candidates: Object.fromEntries(entries.map(([k, f]) => [k, f.candidates])),
    before: Object.fromEntries(entries.map(([k, f]) => [k, f.before])),
    after: Object.fromEntries(entries.map(([k, f]) => [k, f.after])),
    selection: Object.fromEntries(entries.map(([k, f]) => [k, f.selection])),
    warnings: Object.fromEntries(entries.map(([k, f]) => [k, f.warnings])),
    fit: {
      fitSplit,
      evalSplit,
      selectionSplit,
      method: b.method ?? "auto",
      select: b.select ?? "nll",
      folds: FOLDS,
      estimatedBy,
      caveat: evalSplit === "crossfit" ? crossFitCost(fitSplit) : null,
      targetRisk: b.targetRisk ?? null,
      conservative: b.conservative ?? false,
      n: Object.fromEntries(entries.map(([k, f]) => [k, f.n])),
    },
    skipped,
    imported: false,
    createdBy,
  };
}

/** Checks a stored run (on `split`, default test when it has it) against a calibration file. */
export async function checkLoadedRun(
  data: AnalysisData,
  loaded: LoadedRun,
  file: CalibrationFile,
  opts: { split?: SplitChoice; bins?: number } = {},
): Promise<RunCheck> {
  const split = opts.split ?? defaultSplit(loaded.run);
  const items = new Map<string, ItemData>();
  for (const spec of loaded.specs) {
    if (file.questions[spec.name]) items.set(spec.name, await data.itemSplit(loaded, spec, split));
  }
  const served = [...new Set([...items.values()].flatMap((d) => servedModels(d)))].sort();
  try {
    const report = checkRun(file, { fingerprint: loaded.run.fingerprint, servedBy: served }, items, {
      bins: opts.bins,
    });
    return { ...report, runId: loaded.run.id, split: splitsOf(split) ? split : "all" };
  } catch (err) {
    if (err instanceof RangeError) throw new ApiError(422, "calibration_mismatch", err.message);
    throw err;
  }
}
