/**
 * The parts of `@decision-workbench/datasets` that training reads. Types only: the module itself is
 * imported at run time (see datasets-module.ts), so that `lexical` serves even when it is not built.
 */

import type { Dataset, DatasetInfo, Item, Option } from "@decision-workbench/datasets";

/** An option or level: a bare name or a name with a description. */
export type DatasetOption = Option;

/** One item (question) of a task. */
export type DatasetItem = Item;

/** A loaded dataset. */
export type LoadedDataset = Dataset;

/** What the datasets package exports that training uses. */
export interface DatasetsModule {
  listDatasets(): DatasetInfo[];
  loadDataset(name: string): Promise<Dataset>;
}
