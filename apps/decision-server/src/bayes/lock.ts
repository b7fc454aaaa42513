/**
 * A lock file beside the checkpoint cache, so that processes started together (parallel test files) train
 * once: one trains, the others wait for its cache file. A lock whose process is gone, or that is older
 * than a minute, is taken over.
 */

import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";

const STALE_MS = 60_000;
const POLL_MS = 100;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function stale(path: string): Promise<boolean> {
  try {
    const [info, text] = await Promise.all([stat(path), readFile(path, "utf8")]);
    if (Date.now() - info.mtimeMs > STALE_MS) return true;
    // an empty lock is being written by the process that just created it (it is stale only once old)
    if (text === "") return false;
    const pid = Number.parseInt(text, 10);
    return !(pid > 0 && alive(pid));
  } catch {
    return false;
  }
}

/**
 * Runs `work` holding the lock of `dir`, unless `ready` (for instance: is the cache file there?) has a non-null
 * value, which is returned instead: while another process holds the lock, as soon as it has one, and once the
 * lock is taken (its last holder may have finished between the last look and the taking), before any work.
 */
export async function withLock<T>(
  dir: string,
  ready: () => Promise<T | null>,
  work: () => Promise<T>,
): Promise<T> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, "training.lock");
  for (;;) {
    try {
      const handle = await open(path, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      try {
        const done = await ready();
        return done !== null ? done : await work();
      } finally {
        await rm(path, { force: true });
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const value = await ready();
    if (value !== null) return value;
    if (await stale(path)) await rm(path, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
