/** Datasets as the API shows them: the bundled ones and uploads, summaries, label counts, pages of examples. */

import {
  type Dataset,
  type Example,
  itemOptionNames,
  labelCounts,
  SPLITS,
  type Task,
} from "@decision-workbench/datasets";
import { conflict, notFound } from "../errors.js";
import type { DatasetDetail, DatasetSummary } from "../shapes/datasets.js";
import type { ExamplePage, ExampleRow, Split, UploadRow, WorkbenchStorage } from "../storage/types.js";
import { bundledDataset, isBundled } from "./bundled.js";
import { bundledSummaries } from "./summaries.js";

/**
 * What an upload takes (the JSON body; multipart fields are read into the same shape). Uploads are read,
 * validated and stored on an upload thread: see upload-thread.ts.
 */
export interface UploadInput {
  task: unknown;
  format: "jsonl" | "csv";
  content: string;
}

function itemsOf(task: Task): DatasetSummary["items"] {
  return task.items.map((i) => ({
    name: i.name,
    kind: i.kind,
    options: itemOptionNames(i),
    notStated: i.notStated === true,
  }));
}

function countRows(dataset: Pick<Dataset, "task" | "examples">): DatasetDetail["labelCounts"] {
  const out: DatasetDetail["labelCounts"] = [];
  for (const row of labelCounts(dataset)) {
    for (const split of SPLITS)
      out.push({ item: row.item, split, label: row.label, count: row.counts[split] });
  }
  return out;
}

/** The summary of one bundled dataset. */
async function bundledSummary(name: string): Promise<DatasetSummary> {
  const found = (await bundledSummaries()).find((d) => d.name === name);
  if (!found) throw notFound("dataset", name);
  return found;
}

/** Computes the bundled summaries in the background (off the main thread) so the first listing is quick. */
export function warmBundled(): Promise<void> {
  return bundledSummaries().then(() => undefined);
}

/** The summary of a stored upload. */
export function uploadSummary(u: UploadRow): DatasetSummary {
  return {
    name: u.name,
    description: u.task.description,
    source: "upload",
    hash: u.hash,
    examples: u.examples,
    splits: u.splits,
    items: itemsOf(u.task),
    createdBy: u.createdBy ?? null,
  };
}

/** Every dataset: bundled first, then uploads by name. */
export async function listDatasetSummaries(storage: WorkbenchStorage): Promise<DatasetSummary[]> {
  const bundled = await bundledSummaries();
  return [...bundled, ...(await storage.listUploads()).map(uploadSummary)];
}

/** One dataset with its task and label counts. */
export async function datasetDetail(storage: WorkbenchStorage, name: string): Promise<DatasetDetail> {
  if (isBundled(name)) {
    const d = await bundledDataset(name);
    return { ...(await bundledSummary(name)), task: d.task, labelCounts: countRows(d) };
  }
  const u = await storage.getUpload(name);
  if (!u) throw notFound("dataset", name, "list the datasets with GET /api/datasets");
  const examples = await storage.allExamples(name);
  const { createdBy, ...summary } = uploadSummary(u);
  return {
    ...summary,
    task: u.task,
    labelCounts: countRows({ task: u.task, examples: examples as Example[] }),
    createdBy,
  };
}

/** A page of examples, optionally one split and a case-insensitive search of ids and states. */
export async function examplesPage(
  storage: WorkbenchStorage,
  name: string,
  opts: { split?: Split; offset: number; limit: number; q?: string },
): Promise<ExamplePage> {
  if (isBundled(name)) {
    const d = await bundledDataset(name);
    const q = opts.q?.toLowerCase();
    const hits = d.examples.filter(
      (e) =>
        (!opts.split || e.split === opts.split) &&
        (!q ||
          e.id.toLowerCase().includes(q) ||
          (typeof e.state === "string" ? e.state : JSON.stringify(e.state)).toLowerCase().includes(q)),
    );
    return {
      total: hits.length,
      examples: hits.slice(opts.offset, opts.offset + opts.limit) as ExampleRow[],
    };
  }
  if (!(await storage.getUpload(name)))
    throw notFound("dataset", name, "list the datasets with GET /api/datasets");
  return storage.pageExamples(name, opts);
}

/** Deletes an upload; 409 while runs use it unless `force` (which deletes those runs too). */
export async function deleteDataset(
  storage: WorkbenchStorage,
  name: string,
  force: boolean,
  deleteRun: (id: string) => Promise<void>,
): Promise<void> {
  if (isBundled(name))
    throw conflict(`${JSON.stringify(name)} is bundled; only uploads can be deleted`, "dataset_bundled");
  if (!(await storage.getUpload(name)))
    throw notFound("dataset", name, "list the datasets with GET /api/datasets");
  const runs = await storage.listStoredRuns({ dataset: name });
  if (runs.length && !force) {
    throw conflict(
      `${runs.length} run(s) use dataset ${JSON.stringify(name)}; delete them first or pass ?force=true to delete them with it`,
      "dataset_in_use",
    );
  }
  for (const r of runs) await deleteRun(r.id);
  await storage.deleteUpload(name);
}
