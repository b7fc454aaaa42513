// Deterministic synthetic runs written through the storage, as the engine writes them: the bundled dataset's own
// examples first (real ids, so the items route shows their states), then synthetic ones; predictions decided as the
// scorer decides (softmax with "not stated" last, or one sigmoid per option of a multi-label item). Used by
// bench/snapshot.ts and bench/targets.ts.

import { mulberry32 } from "@decision-workbench/calibration";
import {
  type Example,
  type Item,
  itemOptionNames,
  loadDataset,
  NOT_STATED,
  type Split,
} from "@decision-workbench/datasets";
import type { openStorage } from "../src/storage/sqlite.js";
import type { PredictionRow } from "../src/storage/types.js";
import { storedRun } from "../test/fixtures.js";

/** A fixed time: the runs' timestamps are the same in every snapshot. */
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

export interface RunPlan {
  id: string;
  dataset: string;
  splits: Split[];
  examples: number;
  seed: number;
  model: string;
  /** served_by of the first half, and of the second (a model change mid-run). */
  served: [string, string];
  status: "done" | "cancelled";
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
function softmax(z: number[]): number[] {
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

const ESCALATIONS = [
  "the decision service did not answer after 3 attempts: reset",
  "the answer to 'q' is not one of the options",
  "HTTP 500 from the decision service",
];

/** The examples of a run: the dataset's own on the run's splits, then synthetic ones (ids `<dataset>-syn-N`). */
function examplesOf(
  all: Example[],
  plan: RunPlan,
  rng: ReturnType<typeof mulberry32>,
  items: Item[],
): Example[] {
  const out = all.filter((e) => plan.splits.includes(e.split)).slice(0, plan.examples);
  for (let n = 0; out.length < plan.examples; n++) {
    const labels: Record<string, string | string[]> = {};
    for (const item of items) {
      if (rng.float() < 0.005) continue; // unlabelled
      const names = itemOptionNames(item);
      if (item.kind === "multi") labels[item.name] = names.filter(() => rng.float() < 0.3);
      else if (item.notStated && rng.float() < 0.1) labels[item.name] = NOT_STATED;
      else
        labels[item.name] = names[Math.min(names.length - 1, Math.floor(rng.float() ** 1.5 * names.length))];
    }
    out.push({
      id: `${plan.dataset}-syn-${String(n).padStart(5, "0")}`,
      state: { n },
      labels,
      split: plan.splits[n % plan.splits.length],
    });
  }
  return out;
}

/** One item's prediction, as the scorer decides it (softmax or per-option sigmoids, "not stated" last). */
function predict(
  rng: ReturnType<typeof mulberry32>,
  item: Item,
  gold: string | string[] | null,
  base: PredictionRow,
): PredictionRow {
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng.float())) * Math.cos(2 * Math.PI * rng.float());
  const names = itemOptionNames(item);
  const reasoning =
    rng.float() < 0.1
      ? {
          reasoning:
            item.kind === "multi"
              ? Object.fromEntries(
                  names.map((n, j) => [n, { text: `option ${n}: cue ${j}`, tokens: 4, thought: false }]),
                )
              : { text: `because of cue ${Math.floor(rng.float() * 100)}`, tokens: 5, thought: true },
        }
      : {};
  const record = { ...base.record, ...reasoning };
  if (item.kind === "multi") {
    const golds = Array.isArray(gold) ? gold : [];
    const logits = names.map((n) => (golds.includes(n) ? 1.5 : -1.5) + 1.3 * gauss());
    const ps = logits.map(sigmoid);
    const probabilities = Object.fromEntries(names.map((n, j) => [n, ps[j]]));
    return {
      ...base,
      status: "answered",
      answer: names.filter((_, j) => ps[j] >= 0.5),
      confidence: Math.min(...ps.map((p) => Math.max(p, 1 - p))),
      probabilities,
      logits,
      record,
    };
  }
  const logits = names.map((n) => (n === gold ? 1.6 : 0) + 1.2 * gauss());
  const unknown = item.notStated ? (gold === NOT_STATED ? 1.8 : -0.5) + 1.2 * gauss() : undefined;
  const outcomes = item.notStated ? [...names, NOT_STATED] : names;
  const ps = softmax(
    unknown === undefined ? logits.map((z) => z / 0.6) : [...logits, unknown].map((z) => z / 0.6),
  );
  const probabilities: Record<string, number> = {};
  let best = 0;
  outcomes.forEach((n, j) => {
    probabilities[n] = ps[j];
    if (ps[j] > ps[best]) best = j;
  });
  const isUnknown = unknown !== undefined && best === outcomes.length - 1;
  return {
    ...base,
    status: isUnknown ? "unknown" : "answered",
    answer: isUnknown ? null : outcomes[best],
    confidence: ps[best],
    probabilities,
    logits,
    unknown: unknown ?? null,
    reason: isUnknown ? "not stated" : null,
    record,
  };
}

/** Writes one run of the plan through the storage; `onRow` sees every prediction written. */
export async function writeRun(
  storage: ReturnType<typeof openStorage>,
  plan: RunPlan,
  onRow?: (row: PredictionRow) => void,
): Promise<void> {
  const dataset = await loadDataset(plan.dataset);
  const items = dataset.task.items;
  const rng = mulberry32(plan.seed);
  const examples = examplesOf(dataset.examples, plan, rng, items);
  const endpoint = "http://127.0.0.1:9/v1/decision";
  await storage.insertRun(
    storedRun(plan.id, {
      dataset: plan.dataset,
      datasetHash: dataset.hash,
      serverId: "snapshot-server",
      serverName: "snapshot",
      endpoint,
      model: plan.model,
      fingerprint: `decision|${endpoint}|${plan.model}`,
      splits: plan.splits,
      concurrency: 8,
      createdAt: at(plan.seed * 100),
      startedAt: at(plan.seed * 100 + 1),
      total: plan.status === "done" ? examples.length : 1461,
      status: "running",
    }),
  );
  for (const [ordinal, example] of examples.entries()) {
    const servedBy = plan.served[ordinal < examples.length / 2 ? 0 : 1];
    const inputTokens = 80 + Math.floor(rng.float() * 400);
    const record = {
      endpoint,
      model: plan.model,
      served_by: servedBy,
      ms: 5 + Math.floor(rng.float() * 200),
      questions: items.length,
      usage: { input_tokens: inputTokens, output_tokens: items.length, reasoning_tokens: 0 },
      cost: inputTokens * 1e-6,
    };
    const failed = rng.float() < 0.02;
    const predictions = items.map((item): PredictionRow => {
      const label = example.labels[item.name];
      const gold = label === undefined ? null : label;
      const base: PredictionRow = {
        runId: plan.id,
        exampleId: example.id,
        split: example.split,
        item: item.name,
        gold,
        status: "escalated",
        answer: null,
        confidence: null,
        probabilities: null,
        logits: itemOptionNames(item).map(() => 0),
        unknown: null,
        reason: ESCALATIONS[ordinal % ESCALATIONS.length],
        record,
        servedBy,
      };
      if (failed || rng.float() < 0.01) return base;
      return predict(rng, item, gold, base);
    });
    if (onRow) for (const row of predictions) onRow(row);
    await storage.recordExample({
      runId: plan.id,
      exampleId: example.id,
      ordinal,
      split: example.split,
      ms: record.ms,
      servedBy,
      inputTokens,
      outputTokens: items.length,
      reasoningTokens: 0,
      cost: record.cost,
      failed,
      record,
      predictions,
    });
  }
  await storage.updateRun(plan.id, { status: plan.status, finishedAt: at(plan.seed * 100 + 60) });
}
