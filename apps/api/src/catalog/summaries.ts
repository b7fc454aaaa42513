/**
 * Summaries of the bundled datasets (hash, split counts, items), computed on a worker thread: loading
 * spam-assassin parses 6,046 emails, which would stall runs on the main thread and keep ~100 MB in its heap.
 */

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Split, Task } from "@decision-workbench/datasets";

/** A dataset as listed. */
export interface DatasetSummary {
  name: string;
  description: string;
  source: "bundled" | "upload";
  hash: string;
  examples: number;
  splits: Record<Split, number>;
  items: { name: string; kind: Task["items"][number]["kind"]; options: string[]; notStated: boolean }[];
}

// A CommonJS script (eval) that imports the datasets package by URL: no build step, no loader in tests.
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const d = await import(workerData.url);
  const out = [];
  for (const info of d.listDatasets()) {
    const ds = await d.loadDataset(info.name);
    const splits = { train: 0, calibration: 0, test: 0 };
    for (const e of ds.examples) splits[e.split]++;
    out.push({
      name: info.name,
      description: ds.task.description,
      source: "bundled",
      hash: ds.hash,
      examples: ds.examples.length,
      splits,
      items: ds.task.items.map((i) => ({
        name: i.name, kind: i.kind, options: d.itemOptionNames(i), notStated: i.notStated === true,
      })),
    });
  }
  parentPort.postMessage({ summaries: out });
})().catch((e) => parentPort.postMessage({ error: String((e && e.message) || e) }));
`;

let pending: Promise<DatasetSummary[]> | undefined;

function compute(): Promise<DatasetSummary[]> {
  const url = pathToFileURL(createRequire(import.meta.url).resolve("@decision-workbench/datasets")).href;
  return new Promise((resolve, reject) => {
    const worker = new Worker(SCRIPT, { eval: true, workerData: { url } });
    worker.once("message", (m: { summaries?: DatasetSummary[]; error?: string }) => {
      void worker.terminate();
      if (m.summaries) resolve(m.summaries);
      else reject(new Error(`the bundled datasets could not be loaded: ${m.error}`));
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the dataset summary thread stopped (exit code ${code})`));
    });
  });
}

/** The bundled datasets' summaries, in listing order (computed once per process, off the main thread). */
export function bundledSummaries(): Promise<DatasetSummary[]> {
  if (!pending) {
    pending = compute();
    pending.catch(() => {
      pending = undefined;
    });
  }
  return pending;
}
