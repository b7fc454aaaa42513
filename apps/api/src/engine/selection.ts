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
