/**
 * Trains on all datasets using two worker threads (the datasets split by size), so a cold start takes about
 * as long as the largest dataset. From TypeScript sources (tests) the workers run through tsx when it is
 * installed; without it training runs in this thread.
 */

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { DatasetsModule, LoadedDataset } from "./dataset-types.js";
import { type TrainedVersion, trainVersions } from "./train.js";
import { VERSIONS } from "./versions.js";

const WORKERS = 2;

interface WorkerSetup {
  /** A script path, or (eval) code that loads the TypeScript worker through tsx. */
  script: string;
  eval: boolean;
}

/** The worker: built JavaScript, or the TypeScript source loaded through tsx when tsx can be found. */
function workerSetup(): WorkerSetup | null {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const url = new URL(`./train-worker${ext}`, import.meta.url);
  if (!existsSync(fileURLToPath(url))) return null;
  if (ext === ".js") return { script: fileURLToPath(url), eval: false };
  try {
    const api = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")).href;
    const code = `import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(url.href)}, ${JSON.stringify(import.meta.url)}))`;
    return { script: code, eval: true };
  } catch {
    return null;
  }
}

function runWorker(setup: WorkerSetup, names: string[]): Promise<TrainedVersion[]> {
  return new Promise((resolve, reject) => {
    // execArgv: [] so that flags of this process (such as --input-type) do not reach the worker.
    const worker = new Worker(setup.script, { workerData: { names }, eval: setup.eval, execArgv: [] });
    worker.once("message", (result: TrainedVersion[]) => resolve(result));
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (code !== 0) reject(new Error(`checkpoint training worker exited with code ${code}`));
    });
  });
}

/** Splits datasets into `n` groups of similar total size (largest first, each to the lightest group). */
function partition(infos: { name: string; examples: number }[], n: number): string[][] {
  const groups = Array.from({ length: n }, () => ({ size: 0, names: [] as string[] }));
  for (const info of [...infos].sort((a, b) => b.examples - a.examples)) {
    const lightest = groups.reduce((a, b) => (b.size < a.size ? b : a));
    lightest.size += info.examples;
    lightest.names.push(info.name);
  }
  return groups.map((g) => g.names).filter((names) => names.length > 0);
}

/** Trains every version on every listed dataset; versions list datasets in `infos` order. */
export async function trainAll(
  module: DatasetsModule,
  infos: { name: string; examples: number }[],
): Promise<TrainedVersion[]> {
  const inThread = async (): Promise<TrainedVersion[]> => {
    const datasets: LoadedDataset[] = [];
    for (const info of infos) datasets.push(await module.loadDataset(info.name));
    return trainVersions(VERSIONS, datasets);
  };
  const worker = workerSetup();
  if (!worker) return inThread();
  let parts: TrainedVersion[][];
  try {
    parts = await Promise.all(partition(infos, WORKERS).map((names) => runWorker(worker, names)));
  } catch (error) {
    process.stderr.write(
      `decision-server: training in worker threads failed (${(error as Error).message}); training in this thread\n`,
    );
    return inThread();
  }
  return VERSIONS.map((cfg, v) => {
    const all = parts.flatMap((part) => part[v].datasets);
    return {
      version: cfg.name,
      datasets: infos.map((info) => {
        const found = all.find((d) => d.name === info.name);
        if (!found) throw new Error(`checkpoint training produced nothing for dataset ${info.name}`);
        return found;
      }),
    };
  });
}
