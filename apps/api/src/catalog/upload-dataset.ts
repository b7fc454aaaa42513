/**
 * One upload, on the upload thread: the task checked, the file parsed and validated with line numbers, the
 * dataset hashed and stored (in short transactions, hidden until complete). Nothing is stored when anything is
 * wrong.
 */

import {
  checkCsv,
  checkJsonl,
  datasetHashOf,
  parseTask,
  type Task,
  type ValidationError,
} from "@decision-workbench/datasets";
import { DecisionScorer, ValueError } from "@decision-workbench/scorer";
import { ApiError, badRequest, conflict } from "../errors.js";
import type { ExampleRow, Split, UploadRow } from "../storage/types.js";
import { isBundled } from "./bundled.js";
import type { ReadUpload } from "./upload-input.js";
import { UPLOAD_LIMIT, UPLOAD_MAX_DEPTH } from "./upload-limits.js";
import type { UploadTarget } from "./upload-store.js";

/** Upload names: letters, digits, `.`, `_`, `-`; they appear in URLs. */
const DATASET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

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

/** The task of an upload, checked; its name free. */
async function checkedTask(value: unknown, store: UploadTarget): Promise<Task> {
  const parsed = parseTask(value);
  if (!parsed.ok) throw new ApiError(400, "invalid_task", parsed.message, parsed.errors.map(detailOf));
  const task = parsed.task;
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
  await store.checkName(task.name);
  checkTaskForScorer(task);
  return task;
}

/** An upload's file read and checked: its examples' count, splits and hash, and the examples to store, in order. */
interface ReadFile {
  count: number;
  splits: Record<Split, number>;
  hash: string;
  /** Each example made (or let go) as it is stored: the list is read once. */
  examples: Iterable<ExampleRow>;
}

/**
 * The file checked without holding its examples: its lines (or CSV records) are checked, then each example is
 * parsed again from its line for the hash (in id order) and for the insert (in file order), so an upload holds its
 * file and two offsets a row instead of every parsed example (~270 bytes each). A JSONL file of UTF-8 bytes is read
 * from the bytes themselves (no text of the whole file); a CSV file from its decoded text.
 */
function readFile(input: ReadUpload, task: Task, source: string): ReadFile {
  const content = input.content;
  input.content = "";
  const opts = { source, maxBytes: UPLOAD_LIMIT, maxDepth: UPLOAD_MAX_DEPTH };
  const checked = input.format === "csv" ? checkCsv(content, task, opts) : checkJsonl(content, task, opts);
  if (!checked.ok) throw invalidFile(checked);
  const { ids, example } = checked;
  return {
    ...counted(source, checked.splits),
    hash: datasetHashOf(task, ids, example),
    examples: {
      *[Symbol.iterator]() {
        for (let k = 0; k < ids.length; k++) yield example(k);
      },
    },
  };
}

function invalidFile(failed: { message: string; errors: ValidationError[] }): ApiError {
  return new ApiError(400, "invalid_dataset", failed.message, failed.errors.map(detailOf));
}

/** Examples per split; a 400 when there is none. */
function counted(
  source: string,
  splitsOf: readonly Split[],
): { count: number; splits: Record<Split, number> } {
  if (splitsOf.length === 0) {
    throw new ApiError(400, "invalid_dataset", `${source} holds no examples; give at least one line`, []);
  }
  const splits: Record<Split, number> = { train: 0, calibration: 0, test: 0 };
  for (const s of splitsOf) splits[s]++;
  return { count: splitsOf.length, splits };
}

/** Validates and stores an upload (all or nothing); errors come back as a list with line numbers. */
export async function storeUpload(
  input: ReadUpload,
  store: UploadTarget,
  createdBy: string | null,
): Promise<UploadRow> {
  const task = await checkedTask(input.task, store);
  const file = readFile(input, task, `${task.name}.${input.format}`);
  const row: UploadRow = {
    name: task.name,
    task,
    hash: file.hash,
    examples: file.count,
    splits: file.splits,
    createdAt: new Date().toISOString(),
    ...(createdBy === null ? {} : { createdBy }),
  };
  await store.insert(row, file.examples);
  return row;
}
