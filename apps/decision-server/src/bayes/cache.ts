/**
 * Where trained checkpoints live on disk, and the fingerprint that says whether a cached file still
 * matches the datasets and the training code.
 */

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { TrainedVersion } from "./train.js";

/** The environment variable that moves the checkpoint cache folder. */
export const CACHE_DIR_ENV = "DECISION_SERVER_CACHE_DIR";

/** Bumped whenever training or the file layout changes, so old caches are not read. */
export const CACHE_FORMAT = 2;

/** Cache files kept in the folder (the newest; older fingerprints are removed). */
const KEEP_FILES = 4;

/** The cache folder: `$DECISION_SERVER_CACHE_DIR`, else `<repo>/.data/decision-server`. */
export function defaultCacheDir(): string {
  const fromEnv = process.env[CACHE_DIR_ENV];
  if (fromEnv) return fromEnv;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return join(dir, ".data", "decision-server");
    const up = dirname(dir);
    if (up === dir) return join(tmpdir(), "decision-server-checkpoints");
    dir = up;
  }
}

function hashTree(root: string, dir: string, hash: ReturnType<typeof createHash>): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) hashTree(root, path, hash);
    else if (!name.endsWith(".map")) {
      hash.update(relative(root, path));
      hash.update("\u0000");
      hash.update(readFileSync(path));
      hash.update("\u0000");
    }
  }
}

/** Hash of the datasets package's manifest, built code, bundled files and task files: what training read. */
export function datasetsPackageHash(packageDir: string): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(join(packageDir, "package.json")));
  hashTree(packageDir, join(packageDir, "dist"), hash);
  hashTree(packageDir, join(packageDir, "bundled"), hash);
  hashTree(packageDir, join(packageDir, "tasks"), hash);
  return hash.digest("hex");
}

/**
 * Hash of the code that training runs (this package's `src/bayes` and `src/text`, or the built files beside
 * this module when the sources are not shipped), so a change to training invalidates the cache.
 */
export function trainingCodeHash(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const packageDir = join(here, "..", "..");
  const hash = createHash("sha256");
  const src = join(packageDir, "src");
  const root = existsSync(join(src, "bayes")) ? src : join(here, "..");
  for (const part of ["bayes", "text"]) hashTree(root, join(root, part), hash);
  return hash.digest("hex");
}

/** The cache file for a fingerprint. */
function cacheFile(dir: string, fingerprint: string): string {
  return join(dir, `checkpoints-${fingerprint.slice(0, 16)}.json`);
}

/** The cached content of one fingerprint. */
interface CacheContent {
  format: number;
  fingerprint: string;
  versions: TrainedVersion[];
}

/** Reads a cache file, or null when it is missing, unreadable or for another fingerprint. */
export async function readCache(dir: string, fingerprint: string): Promise<TrainedVersion[] | null> {
  try {
    const content = JSON.parse(await readFile(cacheFile(dir, fingerprint), "utf8")) as CacheContent;
    if (content.format !== CACHE_FORMAT || content.fingerprint !== fingerprint) return null;
    return content.versions;
  } catch {
    return null;
  }
}

/** Writes a cache file atomically and removes all but the newest few caches of other fingerprints. */
export async function writeCache(
  dir: string,
  fingerprint: string,
  versions: TrainedVersion[],
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = cacheFile(dir, fingerprint);
  const tmp = `${file}.${process.pid}.tmp`;
  const content: CacheContent = { format: CACHE_FORMAT, fingerprint, versions };
  await writeFile(tmp, JSON.stringify(content));
  await rename(tmp, file);
  const others: { path: string; mtime: number }[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (name.startsWith("checkpoints-") && name.endsWith(".json") && path !== file) {
      try {
        others.push({ path, mtime: statSync(path).mtimeMs });
      } catch {
        // removed meanwhile by another process
      }
    }
  }
  others.sort((a, b) => b.mtime - a.mtime);
  for (const old of others.slice(KEEP_FILES - 1)) await rm(old.path, { force: true });
}
