/**
 * Summaries of the bundled datasets (hash, split counts, items), computed in a short-lived child process:
 * loading spam-assassin parses 6,046 emails, which would stall runs on the main thread, and the ~80 MB it
 * takes are given back to the system when the child exits.
 */

import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { DatasetSummary } from "../shapes/datasets.js";

// An ES module script that imports the datasets package by URL (argv[1]) and prints the summaries as JSON.
const SCRIPT = `
(async () => {
  const d = await import(process.argv[1]);
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
      createdBy: null,
    });
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => {
  process.stderr.write(String((e && e.message) || e));
  process.exitCode = 1;
});
`;

let pending: Promise<DatasetSummary[]> | undefined;

function compute(): Promise<DatasetSummary[]> {
  const url = pathToFileURL(createRequire(import.meta.url).resolve("@decision-workbench/datasets")).href;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", SCRIPT, url], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      err += c;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) {
        try {
          return resolve(JSON.parse(out) as DatasetSummary[]);
        } catch {
          // fall through
        }
      }
      reject(new Error(`the bundled datasets could not be loaded: ${err.trim() || `exit code ${code}`}`));
    });
  });
}

/** The bundled datasets' summaries, in listing order (computed once per process, in a child process). */
export function bundledSummaries(): Promise<DatasetSummary[]> {
  if (!pending) {
    pending = compute();
    pending.catch(() => {
      pending = undefined;
    });
  }
  return pending;
}
