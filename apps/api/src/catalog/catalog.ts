/** Datasets as the API shows them: the bundled ones and uploads, summaries, label counts, pages of examples. */

import {
  type Dataset,
  datasetHash,
  type Example,
  itemOptionNames,
  labelCounts,
  parseCsv,
  parseJsonl,
  parseTask,
  SPLITS,
  type Task,
  type ValidationError,
} from "@decision-workbench/datasets";
import { DecisionScorer, ValueError } from "@decision-workbench/scorer";
import { ApiError, badRequest, conflict, notFound } from "../errors.js";
import type { ExamplePage, ExampleRow, Split, UploadRow, WorkbenchStorage } from "../storage/types.js";
import { bundledDataset, isBundled } from "./bundled.js";
import { bundledSummaries, type DatasetSummary } from "./summaries.js";

export type { DatasetSummary };

/** GET /api/datasets/:name: the summary, the task and label counts per split. */
export interface DatasetDetail extends DatasetSummary {
  task: Task;
  labelCounts: { item: string; split: Split; label: string; count: number }[];
}

/** What an upload takes. */
export interface UploadInput {
  task: unknown;
  format: "jsonl" | "csv";
  content: string;
}

/** Largest dataset file accepted (the datasets package's default: 100 MiB). */
export const UPLOAD_MAX_BYTES = 100 * 1024 * 1024;

/** Upload names: letters, digits, `.`, `_`, `-`; they appear in URLs. */
export const DATASET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function splitCounts(examples: readonly { split: Split }[]): Record<Split, number> {
  const out: Record<Split, number> = { train: 0, calibration: 0, test: 0 };
  for (const e of examples) out[e.split]++;
  return out;
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
export async function bundledSummary(name: string): Promise<DatasetSummary> {
  const found = (await bundledSummaries()).find((d) => d.name === name);
  if (!found) throw notFound("dataset", name);
  return found;
}

/** Computes the bundled summaries in the background (off the main thread) so the first listing is quick. */
export function warmBundled(): Promise<void> {
  return bundledSummaries().then(() => undefined);
}

function uploadSummary(u: UploadRow): DatasetSummary {
  return {
    name: u.name,
    description: u.task.description,
    source: "upload",
    hash: u.hash,
    examples: u.examples,
    splits: u.splits,
    items: itemsOf(u.task),
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
  return {
    ...uploadSummary(u),
    task: u.task,
    labelCounts: countRows({ task: u.task, examples: examples as Example[] }),
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

function detailOf(e: ValidationError): Record<string, unknown> {
  const out: Record<string, unknown> = { code: e.code, message: e.message };
  if (e.line !== undefined) out.line = e.line;
  if (e.column !== undefined) out.column = e.column;
  if (e.columnName !== undefined) out.columnName = e.columnName;
  if (e.field !== undefined) out.field = e.field;
  if (e.id !== undefined) out.id = e.id;
  return out;
}

/** Checks the task the way the scorer will ask it (option limits and the like). */
function checkTaskForScorer(task: Task): void {
  const scorer = new DecisionScorer("http://127.0.0.1", "check");
  for (const item of task.items) {
    try {
      scorer.questions(item);
    } catch (err) {
      if (err instanceof ValueError) {
        throw new ApiError(400, "invalid_task", `task item ${JSON.stringify(item.name)}: ${err.message}`);
      }
      throw err;
    }
  }
}

/** Validates and stores an upload (all or nothing); errors come back as a list with line numbers. */
export async function uploadDataset(storage: WorkbenchStorage, input: UploadInput): Promise<DatasetSummary> {
  const parsedTask = parseTask(input.task);
  if (!parsedTask.ok) {
    throw new ApiError(400, "invalid_task", parsedTask.message, parsedTask.errors.map(detailOf));
  }
  const task = parsedTask.task;
  if (!DATASET_NAME.test(task.name)) {
    throw badRequest(
      `task.name ${JSON.stringify(task.name.slice(0, 80))} cannot name a dataset: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  if (isBundled(task.name)) {
    throw conflict(
      `${JSON.stringify(task.name)} is a bundled dataset; give the task another name`,
      "dataset_exists",
    );
  }
  if (await storage.getUpload(task.name)) {
    throw conflict(
      `a dataset named ${JSON.stringify(task.name)} is already uploaded; delete it first (DELETE /api/datasets/${task.name}) or give the task another name`,
      "dataset_exists",
    );
  }
  checkTaskForScorer(task);
  const opts = { source: `${task.name}.${input.format}`, maxBytes: UPLOAD_MAX_BYTES };
  const parsed =
    input.format === "csv" ? parseCsv(input.content, task, opts) : parseJsonl(input.content, task, opts);
  if (!parsed.ok) throw new ApiError(400, "invalid_dataset", parsed.message, parsed.errors.map(detailOf));
  if (parsed.examples.length === 0) {
    throw new ApiError(
      400,
      "invalid_dataset",
      `${opts.source} holds no examples; give at least one line`,
      [],
    );
  }
  const row: UploadRow = {
    name: task.name,
    task,
    hash: datasetHash(task, parsed.examples),
    examples: parsed.examples.length,
    splits: splitCounts(parsed.examples),
    createdAt: new Date().toISOString(),
  };
  await storage.insertUpload(row, parsed.examples);
  return uploadSummary(row);
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
