/** Which examples a run covers: the dataset's examples in order, restricted to the splits, the first N of each. */

import type { Example, Item, Task } from "@decision-workbench/datasets";
import { orderedState, type State as ScorerState } from "@decision-workbench/scorer";
import { bundledDataset, isBundled } from "../catalog/bundled.js";
import type { ExampleRow, Split, WorkbenchStorage } from "../storage/types.js";

/** One example of a run and its position in the run. */
export interface Selected {
  ordinal: number;
  example: Example | ExampleRow;
}

/**
 * The state the scorer sends for an example: in its file's key order (an OrderedState of its `stateJson`) when the
 * parsed state lost that order (JavaScript lists integer-like keys such as "2" first), else the state itself.
 */
export function wireState(example: Example | ExampleRow): ScorerState {
  return example.stateJson === undefined ? example.state : orderedState(example.stateJson);
}

/** A run's dataset as the engine reads it. */
export interface Selection {
  task: Task;
  items: Item[];
  hash: string;
  examples: Selected[];
}

/** The examples a run covers; undefined when the dataset does not exist. */
export async function selectExamples(
  storage: WorkbenchStorage,
  dataset: string,
  splits: Split[],
  limit: number | null,
): Promise<Selection | undefined> {
  let task: Task;
  let hash: string;
  let all: readonly (Example | ExampleRow)[];
  if (isBundled(dataset)) {
    const d = await bundledDataset(dataset);
    task = d.task;
    hash = d.hash;
    all = d.examples;
  } else {
    const read = await storage.uploadWithExamples(dataset);
    if (!read) return undefined;
    task = read.upload.task;
    hash = read.upload.hash;
    all = read.examples;
  }
  const wanted = new Set(splits);
  const taken = new Map<Split, number>();
  const examples: Selected[] = [];
  for (const example of all) {
    if (!wanted.has(example.split)) continue;
    const n = taken.get(example.split) ?? 0;
    if (limit !== null && n >= limit) continue;
    taken.set(example.split, n + 1);
    examples.push({ ordinal: examples.length, example });
  }
  return { task, items: task.items, hash, examples };
}

/**
 * A run's examples as columns, without their text: what a run of a million examples can hold in a process that
 * shares it with others (queued runs, engine/run-worker.ts). `source[i]`: the run's example i as its ordinal in
 * the upload (or its index in a bundled dataset).
 */
export interface Outline {
  items: Item[];
  hash: string;
  /** Examples in the run. */
  total: number;
  source: Int32Array;
}

/** The outline of the examples a run covers (as selectExamples picks them); undefined when the dataset is gone. */
export async function outlineExamples(
  storage: WorkbenchStorage,
  dataset: string,
  splits: Split[],
  limit: number | null,
): Promise<Outline | undefined> {
  let ordinals: Int32Array;
  let codes: Uint8Array;
  let task: Task;
  let hash: string;
  if (isBundled(dataset)) {
    const d = await bundledDataset(dataset);
    ({ task, hash } = d);
    const wanted = d.examples.flatMap((e, i) => (splits.includes(e.split) ? [i] : []));
    ordinals = Int32Array.from(wanted);
    codes = Uint8Array.from(wanted, (i) => splits.indexOf(d.examples[i].split));
  } else {
    const read = await storage.uploadOutline(dataset, splits);
    if (!read) return undefined;
    ({ task, hash } = read.upload);
    ({ ordinals, splits: codes } = read);
  }
  if (limit === null) return { items: task.items, hash, total: ordinals.length, source: ordinals };
  const taken = new Array<number>(splits.length).fill(0);
  const source = ordinals.filter((_, k) => taken[codes[k]]++ < limit);
  return { items: task.items, hash, total: source.length, source };
}

/**
 * Why a run cannot go on with its dataset as it is now (`now`: its hash, undefined when it is gone), or undefined
 * when the dataset still has the run's hash `runHash`: at a run's start (run-setup.ts) and at each page.
 */
export function datasetDrift(dataset: string, runHash: string, now: string | undefined): string | undefined {
  if (now === undefined) return `the run's dataset ${JSON.stringify(dataset)} was deleted`;
  if (now === runHash) return undefined;
  return `the dataset ${JSON.stringify(dataset)} changed since the run started (hash ${runHash.slice(0, 12)}, now ${now.slice(0, 12)}); start a new run`;
}

/** A dataset's hash as it is now, without reading its examples; undefined when it is gone. */
export async function datasetHashOf(storage: WorkbenchStorage, dataset: string): Promise<string | undefined> {
  if (isBundled(dataset)) return (await bundledDataset(dataset)).hash;
  return (await storage.getUpload(dataset))?.hash;
}

/** The run's examples `from` (inclusive) to `to` (exclusive) of an outline, read with their text. */
export async function examplesBetween(
  storage: WorkbenchStorage,
  dataset: string,
  outline: Outline,
  from: number,
  to: number,
): Promise<Selected[]> {
  const wanted = outline.source.subarray(from, to);
  if (!wanted.length) return [];
  // the run's own examples only: with a split or a limit they can lie far apart in the upload
  let rows: readonly (Example | ExampleRow)[];
  if (isBundled(dataset)) {
    const all = (await bundledDataset(dataset)).examples;
    rows = Array.from(wanted, (ordinal) => all[ordinal]);
  } else {
    rows = await storage.uploadExamplesAt(dataset, wanted);
  }
  if (rows.length !== wanted.length || rows.some((r) => r === undefined)) {
    throw new Error(`the examples of dataset ${JSON.stringify(dataset)} changed while the run was read`);
  }
  return Array.from(wanted, (_, k) => ({ ordinal: from + k, example: rows[k] }));
}

/** The examples a job asks, in run order, read a page at a time: a run holds one page of example text, not all. */
export interface ExamplePages {
  /** How many examples there are to ask. */
  readonly count: number;
  /** The next examples to ask; empty once every one has been read. */
  next(): Promise<Selected[]>;
}

/** Examples already read, as one page. */
export function onePage(examples: Selected[]): ExamplePages {
  let given = false;
  return {
    count: examples.length,
    async next() {
      if (given) return [];
      given = true;
      return examples;
    },
  };
}

/** Run ordinals read per page by `outlinePages`. */
export const EXAMPLE_PAGE = 1024;

/**
 * The examples of an outline not stored yet (`stored`: the run ordinals stored, any order), read EXAMPLE_PAGE run
 * ordinals at a time; a page whose examples are all stored is not read. Each read first checks the dataset still
 * has the outline's hash (one row): a run fails when its dataset is deleted or changed under it.
 */
export function outlinePages(
  storage: WorkbenchStorage,
  dataset: string,
  outline: Outline,
  stored: Int32Array,
): ExamplePages {
  const done = new Uint8Array(outline.total);
  let count = outline.total;
  for (const ordinal of stored) {
    if (ordinal < outline.total && !done[ordinal]) {
      done[ordinal] = 1;
      count--;
    }
  }
  let from = 0;
  return {
    count,
    async next() {
      while (from < outline.total) {
        const to = Math.min(from + EXAMPLE_PAGE, outline.total);
        const start = from;
        from = to;
        if (done.subarray(start, to).every((d) => d === 1)) continue;
        // as a queued run's chunk does: a dataset deleted or changed under the run fails it
        const drift = datasetDrift(dataset, outline.hash, await datasetHashOf(storage, dataset));
        if (drift) throw new Error(drift);
        const page = await examplesBetween(storage, dataset, outline, start, to);
        return page.filter((s) => !done[s.ordinal]);
      }
      return [];
    },
  };
}
