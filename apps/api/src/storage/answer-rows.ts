/**
 * An answered example as rows, the same in both stores: its `run_examples` row (the items as a JSON array, the
 * logits apart, the request's record once), what it adds to its run's counters, the parameters of its
 * `item_values` rows; and a stored row read back into predictions.
 */

import type { DecisionRecord } from "@decision-workbench/scorer";
import { type ItemSpec, inferSpec } from "../analysis/item-spec.js";
import {
  type DecisionFields,
  decodeExampleValues,
  encodeExampleValues,
  type ItemValues,
  itemValues,
  SPLIT_NAMES,
} from "./item-values.js";
import type { Raw } from "./rows.js";
import type { ExampleResult, PredictionRow, RunCounters, Split } from "./types.js";

/** Answered examples read per page by the prediction readers (writes go on between pages). */
export const PAGE_EXAMPLES = 512;

/** The columns of a `run_examples` row the prediction readers read (an AnswerRow). */
export const ANSWER_COLUMNS = "example_id, split, served_by, items, record, logits, ordinal";

/** A run_examples row as the prediction readers read it. */
export interface AnswerRow {
  example_id: string;
  split: string;
  served_by: string | null;
  /** The JSON array of its items (`storedItemsOf`). */
  items: string;
  record: string;
  logits: string;
  ordinal: number;
}

/**
 * One item's prediction as stored in the `items` JSON array of its example's row (in item order): name, gold,
 * status, answer, confidence, probabilities, logits (null: they are in the row's `logits` column), unknown,
 * reason, reasoning. The stored format; `storedItemsOf` reads it back into named fields.
 */
type StoredItemJson = [
  string,
  PredictionRow["gold"],
  PredictionRow["status"],
  PredictionRow["answer"],
  number | null,
  Record<string, number> | null,
  number[] | null,
  number | null,
  string | null,
  unknown,
];

/** A stored item of an answer, with named fields (logits only in rows written inline by version-3 code). */
interface StoredItem {
  item: string;
  gold: PredictionRow["gold"];
  status: PredictionRow["status"];
  answer: PredictionRow["answer"];
  confidence: number | null;
  probabilities: Record<string, number> | null;
  inlineLogits: number[] | null;
  unknown: number | null;
  reason: string | null;
  reasoning: DecisionRecord["reasoning"] | null;
}

/** The stored items of an answer's `items` column. */
export function storedItemsOf(text: string): StoredItem[] {
  return (JSON.parse(text) as StoredItemJson[]).map((t) => ({
    item: t[0],
    gold: t[1],
    status: t[2],
    answer: t[3],
    confidence: t[4],
    probabilities: t[5],
    inlineLogits: t[6],
    unknown: t[7],
    reason: t[8],
    reasoning: (t[9] ?? null) as DecisionRecord["reasoning"] | null,
  }));
}

function storedItemJson(p: PredictionRow): StoredItemJson {
  const reasoning = p.record.reasoning ?? null;
  return [
    p.item,
    p.gold,
    p.status,
    p.answer,
    p.confidence,
    p.probabilities,
    null,
    p.unknown,
    p.reason,
    reasoning,
  ];
}

/** The request's record stored once per example (without per-item reasoning). */
function exampleRecord(r: ExampleResult): unknown {
  if (r.record) return r.record;
  if (!r.predictions[0]) return {};
  const { reasoning: _reasoning, ...rest } = r.predictions[0].record;
  return rest;
}

/** The `run_examples` column of each field of `answerParams`, in statement order. */
export const ANSWER_ROW = {
  runId: "run_id",
  ordinal: "ordinal",
  exampleId: "example_id",
  split: "split",
  ms: "ms",
  servedBy: "served_by",
  failed: "failed",
  record: "record",
  items: "items",
  logits: "logits",
} as const;

/** An example's `run_examples` row, by field (ANSWER_ROW names their columns). */
export function answerParams(r: ExampleResult): Record<keyof typeof ANSWER_ROW, string | number | null> {
  return {
    runId: r.runId,
    ordinal: r.ordinal,
    exampleId: r.exampleId,
    split: r.split,
    ms: r.ms,
    servedBy: r.servedBy,
    failed: r.failed ? 1 : 0,
    record: JSON.stringify(exampleRecord(r)),
    items: JSON.stringify(r.predictions.map(storedItemJson)),
    logits: JSON.stringify(r.predictions.map((p) => p.logits)),
  };
}

/** The `runs` column of each counter an example adds to. */
export const COUNTER_COLUMNS = {
  done: "done",
  answered: "answered",
  unknown: "unknown",
  escalated: "escalated",
  errors: "errors",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  reasoningTokens: "reasoning_tokens",
  cost: "cost",
} as const;

/** A run's counters but its working time: what examples add to them. */
export type CounterSums = Omit<RunCounters, "activeMs">;

/** What an example adds to its run's counters. */
function countersOf(r: ExampleResult): CounterSums {
  const sums: CounterSums = {
    done: 1,
    answered: 0,
    unknown: 0,
    escalated: 0,
    errors: r.failed ? 1 : 0,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    reasoningTokens: r.reasoningTokens,
    cost: r.cost,
  };
  for (const p of r.predictions) sums[p.status]++;
  return sums;
}

/** Adds each example's counters to its run's sum in `sums`. */
export function addCounters(sums: Map<string, CounterSums>, r: ExampleResult): void {
  const add = countersOf(r);
  const sum = sums.get(r.runId);
  if (!sum) sums.set(r.runId, add);
  else for (const key of Object.keys(add) as (keyof CounterSums)[]) sum[key] += add[key];
}

/** The `item_values` column of each field of a loose row (one per answered example), in statement order. */
export const VALUE_ROW = {
  runId: "run_id",
  ordinal: "ordinal",
  exampleId: "example_id",
  split: "split",
  servedBy: "served_by",
  data: "data",
} as const;

/** A loose item_values row: an example's values of every item (item-values.ts `encodeExampleValues`). */
export type ValueRow = Record<keyof typeof VALUE_ROW, string | number | Buffer | null>;

/**
 * The loose item_values row of an example, by its run's item specs `specs`. An item they do not name (e.g. a
 * test's run) gets a spec read from its decision, appended to `specs`: `added` says so, and the store saves them
 * with the run.
 */
export function valueRowOf(
  r: Pick<ExampleResult, "runId" | "ordinal" | "exampleId" | "split" | "servedBy"> & {
    predictions: readonly (DecisionFields & { item: string })[];
  },
  specs: ItemSpec[],
): { row: ValueRow; added: boolean } {
  let added = false;
  const items = r.predictions.map((p) => {
    let index = specs.findIndex((s) => s.name === p.item);
    if (index < 0) {
      index = specs.push(inferSpec(p.item, [p])) - 1;
      added = true;
    }
    return { index, values: itemValues(specs[index], r, p) };
  });
  const row = {
    runId: r.runId,
    ordinal: r.ordinal,
    exampleId: r.exampleId,
    split: Math.max(SPLIT_NAMES.indexOf(r.split), 0),
    servedBy: r.servedBy,
    data: encodeExampleValues(items),
  };
  return { row, added };
}

/** The loose rows' values of one item (rows that have none of it are left out). */
export function looseValues(rows: readonly Raw[], itemIndex: number): ItemValues[] {
  const out: ItemValues[] = [];
  for (const r of rows) {
    const v = decodeExampleValues(
      {
        ordinal: Number(r.ordinal),
        exampleId: String(r.example_id),
        split: Number(r.split),
        servedBy: r.served_by === null || r.served_by === undefined ? null : String(r.served_by),
        data: r.data as Uint8Array,
      },
      itemIndex,
    );
    if (v) out.push(v);
  }
  return out;
}

/** The loose rows of a run (every item), in run order. */
export const LOOSE_COLUMNS = "ordinal, example_id, split, served_by, data";

/** The predictions of a stored answer (only the named item's, when one is). */
export function predictionsOf(runId: string, row: AnswerRow, item?: string): PredictionRow[] {
  const out: PredictionRow[] = [];
  const items = storedItemsOf(row.items);
  let base: DecisionRecord | undefined; // one record per request, parsed once
  let logits: number[][] | undefined;
  for (let k = 0; k < items.length; k++) {
    if (item !== undefined && items[k].item !== item) continue;
    base ??= JSON.parse(row.record) as DecisionRecord;
    logits ??= JSON.parse(row.logits) as number[][];
    // inline logits: a row written into a migrated file by a process still on the version-3 code
    out.push(predictionOf(runId, row, base, items[k], items[k].inlineLogits ?? logits[k] ?? []));
  }
  return out;
}

/** A prediction of one item of a stored answer, with its own copy of the request's record (`base`, parsed). */
function predictionOf(
  runId: string,
  row: AnswerRow,
  base: DecisionRecord,
  i: StoredItem,
  logits: number[],
): PredictionRow {
  const record: DecisionRecord = Object.assign({}, base); // a spread is ~20x slower on Node 20
  if (i.reasoning !== null) record.reasoning = i.reasoning;
  return {
    runId,
    exampleId: row.example_id,
    split: row.split as Split,
    item: i.item,
    gold: i.gold,
    status: i.status,
    answer: i.answer,
    confidence: i.confidence,
    probabilities: i.probabilities,
    logits,
    unknown: i.unknown,
    reason: i.reason,
    record,
    servedBy: row.served_by,
  };
}
