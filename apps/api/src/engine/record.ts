/** What the engine stores for one answered example: one prediction per item and the request's facts. */

import type { Item } from "@decision-workbench/datasets";
import type { Decision } from "@decision-workbench/scorer";
import type { ExampleResult, PredictionRow } from "../storage/types.js";
import type { Selected } from "./selection.js";

/**
 * One prediction row of a decision. Written as literals, not object spreads: on Node 20 a spread into an
 * object this wide costs ~10 us, which at thousands of decisions a second is most of the engine's own time.
 */
function predictionOf(runId: string, sel: Selected, item: Item, d: Decision): PredictionRow {
  const label = sel.example.labels[item.name];
  const gold = label === undefined ? null : label;
  const record = d.extra.decision;
  const servedBy = record.served_by ?? null;
  if (d.status === "escalated") {
    return {
      runId,
      exampleId: sel.example.id,
      split: sel.example.split,
      item: item.name,
      gold,
      status: "escalated",
      answer: null,
      confidence: null,
      probabilities: null,
      logits: d.logits,
      unknown: null,
      reason: d.reason,
      record,
      servedBy,
    };
  }
  return {
    runId,
    exampleId: sel.example.id,
    split: sel.example.split,
    item: item.name,
    gold,
    status: d.status,
    answer: d.status === "answered" ? d.answer : null,
    confidence: d.confidence,
    probabilities: d.probabilities,
    logits: d.logits,
    unknown: typeof d.unknown === "number" ? d.unknown : null,
    reason: d.status === "unknown" ? d.reason : null,
    record,
    servedBy,
  };
}

/** The stored result of one example's request. */
export function exampleResult(
  runId: string,
  sel: Selected,
  items: Item[],
  decisions: Decision[],
): ExampleResult {
  const { reasoning: _reasoning, ...record } = decisions[0].extra.decision;
  const usage = record.usage ?? {};
  return {
    runId,
    exampleId: sel.example.id,
    ordinal: sel.ordinal,
    split: sel.example.split,
    ms: record.ms,
    servedBy: record.served_by ?? null,
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    reasoningTokens: usage.reasoning_tokens ?? 0,
    cost: record.cost ?? 0,
    failed: decisions.every((d) => d.status === "escalated"),
    record,
    predictions: items.map((item, i) => predictionOf(runId, sel, item, decisions[i])),
  };
}

/** The decision a stored prediction describes (for replay). */
export function decisionOf(row: PredictionRow): Decision {
  const extra = { decision: row.record };
  if (row.status === "escalated") {
    return { status: "escalated", reason: row.reason ?? "", logits: row.logits, extra };
  }
  const common = {
    confidence: row.confidence ?? 0,
    probabilities: row.probabilities ?? {},
    logits: row.logits,
    extra,
  };
  if (row.status === "unknown") {
    return { ...common, status: "unknown", reason: "not stated", unknown: row.unknown ?? 0 };
  }
  const answered: Decision = { ...common, status: "answered", answer: row.answer ?? "" };
  if (row.unknown !== null) answered.unknown = row.unknown;
  return answered;
}
