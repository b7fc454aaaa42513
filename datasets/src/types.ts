/** An option of a choice or multi item, or a level of a score item: a bare name or a name with a description. */
export type Option = string | { name: string; description?: string };

/** One question about the state, in the scorer's vocabulary. */
export interface Item {
  name: string;
  kind: "choice" | "yesno" | "score" | "multi";
  question: string;
  /** choice, multi; optional for yesno (then yes/no with descriptions). */
  options?: Option[];
  /** score: ordered lowest to highest. */
  levels?: Option[];
  /** When true, the label "not stated" is allowed (the state lacks the fact). */
  notStated?: boolean;
}

/** Where a dataset comes from and how its labels were made. */
export interface Provenance {
  source: string;
  package: string;
  licence: string;
  labels: string;
}

/** A task definition: the dataset's name, description, provenance and items. */
export interface Task {
  name: string;
  description: string;
  provenance: Provenance;
  items: Item[];
}

/** The three deterministic splits. */
export type Split = "train" | "calibration" | "test";

/** What the decision service reads: text, a mapping (key order kept) or a list. */
export type State = string | Record<string, unknown> | unknown[];

/** One labelled example. A label is an option name, a list of option names (multi) or "not stated". */
export interface Example {
  id: string;
  state: State;
  /**
   * The state's JSON text with every object's keys in their file order, present only when `state` lost that order
   * (JavaScript lists integer-like keys such as "2" first in any object). Written as JSON.stringify writes `state`
   * otherwise; the service is sent this text, and the dataset hash reads it.
   */
  stateJson?: string;
  labels: Record<string, string | string[]>;
  meta?: Record<string, unknown>;
  split: Split;
}

/** A loaded dataset: its task, its examples and the SHA-256 of its canonical content. */
export interface Dataset {
  task: Task;
  examples: Example[];
  hash: string;
}

/** A bundled dataset as listed by `listDatasets()`. */
export interface DatasetInfo {
  name: string;
  description: string;
  items: number;
  examples: number;
}

/** The label meaning "the state does not state the fact this item asks about". */
export const NOT_STATED = "not stated";

/** The names of the three splits, in order. */
export const SPLITS: readonly Split[] = ["train", "calibration", "test"];
