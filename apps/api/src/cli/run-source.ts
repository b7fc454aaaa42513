/**
 * What `workbench run` and `workbench check --server` both read before a run: the server's API key from the named
 * environment variable, and the splits to run, checked against the dataset's own.
 */

import { bundledDataset, isBundled } from "../catalog/bundled.js";
import { catalogNames } from "../catalog/names.js";
import { SPLITS } from "../shapes/limits.js";
import type { Split, WorkbenchStorage } from "../storage/types.js";
import { UsageError } from "./args.js";

/** The API key held by `--api-key-env VAR` (undefined without the flag); a UsageError when VAR is unset or empty. */
export function apiKeyFromEnv(variable: string | undefined): string | undefined {
  if (!variable) return undefined;
  const key = process.env[variable];
  if (!key) throw new UsageError(`--api-key-env ${variable}: that environment variable is not set or empty`);
  return key;
}

/**
 * The splits of a dataset that have examples, in the order train, calibration, test (what `--split all`
 * runs); empty when the dataset is unknown.
 */
async function datasetSplits(storage: WorkbenchStorage, dataset: string): Promise<Split[]> {
  const counts: Record<Split, number> = { train: 0, calibration: 0, test: 0 };
  if (isBundled(dataset)) {
    for (const e of (await bundledDataset(dataset)).examples) counts[e.split]++;
  } else {
    Object.assign(counts, (await storage.getUpload(dataset))?.splits ?? {});
  }
  return SPLITS.filter((s) => counts[s] > 0);
}

/**
 * The splits to run of `--dataset` (`listed`, or "all": every split it has); a UsageError naming the datasets when
 * it is none, or its splits when none of the listed ones has examples. `verb` says what `--split all` does.
 */
export async function splitsToRun(
  storage: WorkbenchStorage,
  dataset: string | undefined,
  listed: Split[] | "all",
  verb: "runs" | "checks",
): Promise<Split[]> {
  const known = await catalogNames(storage);
  if (!known.includes(dataset as string)) {
    throw new UsageError(
      `--dataset ${JSON.stringify(dataset)} is not a dataset; choose one of ${known.join(", ")}`,
    );
  }
  const has = await datasetSplits(storage, dataset as string);
  const splits = listed === "all" ? has : listed;
  if (!splits.some((s) => has.includes(s))) {
    throw new UsageError(
      `--split ${splits.join(",")}: dataset ${dataset} has no examples there; its splits are ${has.join(", ")} (--split all ${verb} every one)`,
    );
  }
  return splits;
}
