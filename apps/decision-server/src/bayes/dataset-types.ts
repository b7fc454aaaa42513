/**
 * The parts of `@decision-workbench/datasets` that training reads (structurally the same as its exports,
 * kept here so that this package builds and serves `lexical` even before that package is built).
 */

/** An option or level: a bare name or a name with a description. */
export type DatasetOption = string | { name: string; description?: string };

/** One item (question) of a task. */
export interface DatasetItem {
  name: string;
  kind: "choice" | "yesno" | "score" | "multi";
  question: string;
  options?: DatasetOption[];
  levels?: DatasetOption[];
  notStated?: boolean;
}

/** One labelled example. */
export interface DatasetExample {
  id: string;
  state: unknown;
  labels: Record<string, string | string[]>;
  split: "train" | "calibration" | "test";
}

/** A loaded dataset. */
export interface LoadedDataset {
  task: { name: string; items: DatasetItem[] };
  examples: DatasetExample[];
  hash: string;
}

/** What the datasets package exports that training uses. */
export interface DatasetsModule {
  listDatasets(): { name: string; description: string; items: number; examples: number }[];
  loadDataset(name: string): Promise<LoadedDataset>;
}
