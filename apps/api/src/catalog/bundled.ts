/** The bundled datasets of the datasets package, as the catalog and the storage see them. */

import {
  bundledTask,
  type Dataset,
  listDatasets,
  loadDataset,
  type State,
  type Task,
} from "@decision-workbench/datasets";

let names: Set<string> | undefined;

/** Names of the bundled datasets. */
export function bundledNames(): string[] {
  names ??= new Set(listDatasets().map((d) => d.name));
  return [...names];
}

/** True when `name` is a bundled dataset. */
export function isBundled(name: string): boolean {
  bundledNames();
  return names?.has(name) ?? false;
}

/** The task of a bundled dataset, or undefined when `name` is not bundled. */
export function bundledTaskOf(name: string): Task | undefined {
  return isBundled(name) ? bundledTask(name) : undefined;
}

/** A bundled dataset (loaded once per process by the datasets package). */
export function bundledDataset(name: string): Promise<Dataset> {
  return loadDataset(name);
}

/** States of some examples of a bundled dataset, by id. */
export async function bundledStates(name: string, ids: string[]): Promise<Map<string, State>> {
  const dataset = await loadDataset(name);
  const wanted = new Set(ids);
  const out = new Map<string, State>();
  for (const e of dataset.examples) if (wanted.has(e.id)) out.set(e.id, e.state);
  return out;
}
