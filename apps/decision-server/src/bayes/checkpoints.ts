/**
 * Loads the trained checkpoints once per process: from the disk cache when its fingerprint matches,
 * otherwise by training on the datasets package's `train` splits (then written to the cache).
 */

import { createHash } from "node:crypto";
import {
  CACHE_FORMAT,
  datasetsPackageHash,
  defaultCacheDir,
  readCache,
  trainingCodeHash,
  writeCache,
} from "./cache.js";
import { importDatasets } from "./datasets-module.js";
import { withLock } from "./lock.js";
import type { TrainedVersion } from "./train.js";
import { trainAll } from "./train-parallel.js";
import { VERSIONS } from "./versions.js";

/** Trained checkpoint versions and where they came from. */
export interface LoadedCheckpoints {
  versions: TrainedVersion[];
  /** "cache" when read from disk, "trained" when trained by this process. */
  origin: "cache" | "trained";
  /** The cache file folder. */
  cacheDir: string;
}

const memo = new Map<string, Promise<LoadedCheckpoints>>();

async function load(cacheDir: string): Promise<LoadedCheckpoints> {
  const { module, packageDir } = await importDatasets();
  const infos = module.listDatasets();
  const fingerprint = createHash("sha256")
    .update(
      JSON.stringify({
        format: CACHE_FORMAT,
        versions: VERSIONS,
        datasets: infos,
        package: datasetsPackageHash(packageDir),
        code: trainingCodeHash(),
      }),
    )
    .digest("hex");
  const fromCache = async (): Promise<LoadedCheckpoints | null> => {
    const cached = await readCache(cacheDir, fingerprint);
    return cached ? { versions: cached, origin: "cache", cacheDir } : null;
  };
  const found = await fromCache();
  if (found) return found;
  return withLock(cacheDir, fromCache, async () => {
    const versions = await trainAll(module, infos);
    await writeCache(cacheDir, fingerprint, versions);
    return { versions, origin: "trained", cacheDir };
  });
}

/** The checkpoints, trained or read at most once per process and cache folder. */
export function loadCheckpoints(cacheDir: string = defaultCacheDir()): Promise<LoadedCheckpoints> {
  let p = memo.get(cacheDir);
  if (!p) {
    p = load(cacheDir);
    p.catch(() => memo.delete(cacheDir));
    memo.set(cacheDir, p);
  }
  return p;
}
