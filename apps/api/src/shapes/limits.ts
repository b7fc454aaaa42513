/**
 * The API's input limits and enumerations as plain constants: the route schemas are built from them and the web app imports them
 * (`@decision-workbench/api/limits`). No imports, so a browser bundles this file as it is.
 */

/** Requests in flight at once of a run. */
export const CONCURRENCY = { default: 16, min: 1, max: 256 } as const;
/** Bins of the reliability diagrams and binned metrics. */
export const BINS = { default: 15, min: 2, max: 100 } as const;
/** Bootstrap resamples a report or fit may ask for. */
export const RESAMPLES = { min: 10, max: 10_000 } as const;
/** A run's state length cap (characters), when set. */
export const MAX_LEN = { min: 16, max: 1_000_000 } as const;
/** Rows of one page of the items endpoint. */
export const ITEMS_PAGE = { default: 50, max: 500 } as const;
/** Examples of one page of a dataset. */
export const EXAMPLES_PAGE = { default: 50, max: 500 } as const;
/** Runs one comparison takes. */
export const COMPARE_RUNS = { min: 2, max: 10 } as const;
/** Longest name or id in a path, query or body. */
export const NAME_MAX = 200;
/** The splits of a dataset. */
export const SPLITS = ["train", "calibration", "test"] as const;
/** A split, or "all" of a run's splits. */
export const SPLIT_CHOICES = [...SPLITS, "all"] as const;
