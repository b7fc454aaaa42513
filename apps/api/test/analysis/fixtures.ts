import type { Split, Task } from "@decision-workbench/datasets";
import { loadDataset } from "@decision-workbench/datasets";
import { type DecisionServerHandle, startDecisionServer } from "@decision-workbench/decision-server";
import { type Decision, decisionDecider } from "@decision-workbench/scorer";
import type { PredictionRow } from "../../src/storage/types.js";

/** The stored row of one decision, as the run engine stores it. */
function rowOf(
  runId: string,
  exampleId: string,
  split: Split,
  item: string,
  gold: string | string[] | null,
  d: Decision,
): PredictionRow {
  const record = d.extra.decision;
  return {
    runId,
    exampleId,
    split,
    item,
    gold,
    status: d.status,
    answer: d.status === "answered" ? d.answer : null,
    confidence: d.status === "escalated" ? null : d.confidence,
    probabilities: d.status === "escalated" ? null : d.probabilities,
    logits: d.logits,
    unknown: d.status === "escalated" ? null : (d.unknown ?? null),
    reason: d.status === "answered" ? null : d.reason,
    record,
    servedBy: record.served_by ?? null,
  };
}

/** Real decisions of the reference server over a bundled dataset's examples, as stored rows. */
export async function decisionRows(opts: {
  url: string;
  dataset: string;
  model?: string;
  runId?: string;
  splits?: Split[];
  /** At most this many examples, spread evenly over the dataset order (bundled files are sorted by source). */
  limit?: number;
  apiKey?: string;
}): Promise<{ rows: PredictionRow[]; task: Task; hash: string; fingerprint: string; endpoint: string }> {
  const ds = await loadDataset(opts.dataset);
  const splits = opts.splits ?? ["calibration", "test"];
  let examples = ds.examples.filter((e) => splits.includes(e.split));
  if (opts.limit !== undefined && examples.length > opts.limit) {
    const step = examples.length / opts.limit;
    examples = Array.from({ length: opts.limit }, (_, i) => examples[Math.floor(i * step)]);
  }
  const model = opts.model ?? "workbench-latest";
  const decider = decisionDecider(opts.url, model, opts.apiKey, { timeout: 30, deterministic: true });
  const items = ds.task.items;
  const runId = opts.runId ?? "run_test";
  const rows: PredictionRow[] = [];
  const batch = 16;
  for (let i = 0; i < examples.length; i += batch) {
    const part = examples.slice(i, i + batch);
    const decided = await Promise.all(part.map((e) => decider.decideAll(e.state, items)));
    part.forEach((e, j) => {
      items.forEach((item, t) => {
        rows.push(rowOf(runId, e.id, e.split, item.name, e.labels[item.name] ?? null, decided[j][t]));
      });
    });
  }
  return { rows, task: ds.task, hash: ds.hash, fingerprint: decider.fingerprint, endpoint: decider.endpoint };
}

/** Starts the reference server on 127.0.0.1, port 0. */
export function startServer(opts: { alias?: string; apiKey?: string } = {}): Promise<DecisionServerHandle> {
  return startDecisionServer({ port: 0, host: "127.0.0.1", ...opts });
}

/** An escalated row for an example (what the engine stores when the service did not answer). */
export function escalatedRow(like: PredictionRow, exampleId: string): PredictionRow {
  return {
    ...like,
    exampleId,
    status: "escalated",
    answer: null,
    confidence: null,
    probabilities: null,
    unknown: null,
    reason: "the decision service did not answer after 3 attempts: reset",
  };
}
