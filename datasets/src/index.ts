/** Hex SHA-256 of a dataset's canonical content; canonicalDataset gives that content as text. */
export { canonicalDataset, datasetHash, datasetHashOf } from "./canonical.js";
export type { LabelCount } from "./counts.js";
/** Label counts per split of a dataset, as rows or as a Markdown table. */
export { labelCounts, labelCountsMarkdown } from "./counts.js";
export { checkCsv, parseCsv } from "./format/csv.js";
/** The default deepest nesting of objects and lists on a JSONL line (64; the example object is level 1). */
export { DEFAULT_MAX_DEPTH } from "./format/depth.js";
export type { ErrorCode, ParseOptions, ParseResult, ValidationError } from "./format/errors.js";
export { DEFAULT_MAX_BYTES, DEFAULT_MAX_ERRORS } from "./format/errors.js";
/** Read examples from JSONL or CSV against a task (all or nothing), and check an in-memory list. */
export { checkJsonl, parseJsonl } from "./format/jsonl.js";
export type { CheckedFile } from "./format/kept-rows.js";
/** A state's key order from its file: `stateJson` read back from stored text, and JavaScript's integer-like keys. */
export { isIndexKey, reorderedJson } from "./format/state-order.js";
/** Lossless decoding of bytes that may not be UTF-8 (bad bytes become U+DC80..U+DCFF) and its inverse. */
export { decodeUtf8Escaped, encodeUtf8Escaped, hasEscapedBytes } from "./format/utf8.js";
export { validateDataset } from "./format/validate.js";
/** The bundled datasets: list them, load one (cached, frozen), read a bundled task definition; freeze shared examples. */
export { bundledTask, freezeExamples, listDatasets, loadDataset } from "./registry.js";
/** The deterministic split of an id (SHA-256 of the id: 50 % train, 25 % calibration, 25 % test). */
export { splitOf } from "./split.js";
/** Task definitions: check one, parse one, and the option names an item's label may take. */
export { itemOptionNames, optionName, parseTask, parseTaskJson, validateTask } from "./task.js";
export type { Dataset, DatasetInfo, Example, Item, Option, Provenance, Split, State, Task } from "./types.js";
export { NOT_STATED, SPLITS } from "./types.js";
