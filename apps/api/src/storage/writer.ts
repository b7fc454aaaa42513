/**
 * Storing answered examples: each example (its request facts, one row per item with its analysis columns, the
 * run's counters) is written whole in one transaction, as it arrives, or with the others that arrived in the same
 * window when answers come by the thousand a second (GroupQueue). `write` resolves once the transaction has
 * committed: an example counts as stored (and is never asked again) only then. The transactions run on the event
 * loop's own connection: on 2 cores, which the event loop and a local decision server keep busy, a writer thread
 * could not run beside them and only added its hand-off (apps/api/bench/RESULTS.md, engine benchmark).
 */

import { performance } from "node:perf_hooks";
import type { DecisionRecord } from "@decision-workbench/scorer";
import type Database from "better-sqlite3";
import { type ItemSpec, inferSpec } from "../analysis/item-spec.js";
import { CHUNK_ROWS, columnsOf, encodeColumns } from "./item-columns.js";
import { type ItemValues, itemValues, valueColumns } from "./item-values.js";
import { itemValuesFromRaw, type Raw } from "./rows.js";
import type { ExampleResult, PredictionRow } from "./types.js";

const SQL = {
  example: `INSERT INTO run_examples (run_id, ordinal, example_id, split, ms, served_by, failed, record, items, logits)
    VALUES (@runId, @ordinal, @exampleId, @split, @ms, @servedBy, @failed, @record, @items, @logits)`,
  counters: `UPDATE runs SET done = done + @done, answered = answered + @answered, unknown = unknown + @unknown,
    escalated = escalated + @escalated, errors = errors + @errors, input_tokens = input_tokens + @inputTokens,
    output_tokens = output_tokens + @outputTokens, reasoning_tokens = reasoning_tokens + @reasoningTokens,
    cost = cost + @cost WHERE id = @runId`,
  specs: "SELECT items FROM runs WHERE id = ?",
  setSpecs: "UPDATE runs SET items = ? WHERE id = ?",
};

/** Inserts one decision's analysis columns (also used by the migration that fills them for older runs). */
export const ITEM_VALUES_INSERT = `INSERT INTO item_values
  (run_id, item_index, ordinal, example_id, split, status, served_by, confidence, gold, gold_list, answer, answer_list, probs)
  VALUES (@runId, @itemIndex, @ordinal, @exampleId, @split, @status, @servedBy, @confidence, @gold, @goldList, @answer, @answerList, @probs)`;

/** The loose rows of one item of a run, in run order. */
export const LOOSE_VALUES_SELECT = `SELECT ordinal, example_id, split, status, served_by, confidence, gold, gold_list,
  answer, answer_list, probs FROM item_values WHERE run_id = ? AND item_index = ? ORDER BY ordinal`;

/**
 * Packs every loose row of a run's items into chunks (item-columns.ts) and marks the run's stored examples as
 * packed. Run by the commit that brings a run's loose rows to CHUNK_ROWS per item, and by the migration.
 */
export function packer(db: Database.Database): (runId: string) => void {
  const specs = db.prepare(SQL.specs).pluck();
  const loose = db.prepare(LOOSE_VALUES_SELECT);
  const next = db
    .prepare("SELECT coalesce(max(chunk) + 1, 0) FROM item_chunks WHERE run_id = ? AND item_index = ?")
    .pluck();
  const insert = db.prepare("INSERT INTO item_chunks (run_id, item_index, chunk, data) VALUES (?, ?, ?, ?)");
  const drop = db.prepare("DELETE FROM item_values WHERE run_id = ? AND item_index = ?");
  const packed = db.prepare("UPDATE runs SET packed = done WHERE id = ?");
  return (runId) => {
    const items = JSON.parse((specs.get(runId) as string | undefined) ?? "[]") as ItemSpec[];
    items.forEach((spec, index) => {
      const rows = (loose.all(runId, index) as Raw[]).map(itemValuesFromRaw);
      let chunk = next.get(runId, index) as number;
      for (let at = 0; at < rows.length; at += CHUNK_ROWS) {
        const columns = columnsOf(valueColumns(spec).length, rows.slice(at, at + CHUNK_ROWS));
        insert.run(runId, index, chunk++, encodeColumns(columns));
      }
      drop.run(runId, index);
    });
    packed.run(runId);
  };
}

/** The named parameters of ITEM_VALUES_INSERT. */
export function itemValuesParams(runId: string, itemIndex: number, v: ItemValues): Record<string, unknown> {
  const list = (code: ItemValues["gold"]) => (code !== null && typeof code === "object" ? code : null);
  const single = (code: ItemValues["gold"]) => (typeof code === "number" ? code : null);
  return {
    runId,
    itemIndex,
    ordinal: v.ordinal,
    exampleId: v.exampleId,
    split: v.split,
    status: v.status,
    servedBy: v.servedBy,
    confidence: v.confidence,
    gold: single(v.gold),
    goldList: list(v.gold),
    answer: single(v.answer),
    answerList: list(v.answer),
    probs: v.probs,
  };
}

/**
 * One item's prediction as stored in the `items` JSON array of its example's row (in item order): name, gold,
 * status, answer, confidence, probabilities, logits (null: they are in the row's `logits` column), unknown,
 * reason, reasoning. The stored format; `storedItemOf` reads it back into named fields.
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
export interface StoredItem {
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

/** A run's counters as one example adds to them. */
function countersOf(r: ExampleResult): Record<string, number | string> {
  let answered = 0;
  let unknown = 0;
  let escalated = 0;
  for (const p of r.predictions) {
    if (p.status === "answered") answered++;
    else if (p.status === "unknown") unknown++;
    else escalated++;
  }
  return {
    runId: r.runId,
    done: 1,
    answered,
    unknown,
    escalated,
    errors: r.failed ? 1 : 0,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    reasoningTokens: r.reasoningTokens,
    cost: r.cost,
  };
}

/** The error of each example of a group (null: committed). */
type GroupOutcome = (string | null)[];

/**
 * Commits a group of examples on `db` in one immediate transaction, with one update of each run's counters; when
 * that fails (e.g. one duplicate), commits each example alone so that one bad example does not take the others
 * with it. Each decision's analysis columns follow the run's item specs (stored with the run; an item the run's
 * dataset did not name, e.g. a test's run, gets a spec read from its first decision, stored then).
 */
function groupCommitter(db: Database.Database): (group: ExampleResult[]) => GroupOutcome {
  const example = db.prepare(SQL.example);
  const values = db.prepare(ITEM_VALUES_INSERT);
  const counters = db.prepare(SQL.counters);
  const readSpecs = db.prepare(SQL.specs).pluck();
  const loose = db.prepare("SELECT done - packed FROM runs WHERE id = ?").pluck();
  const pack = packer(db);
  /** Packs a run's loose rows once CHUNK_ROWS examples of it are loose (after its counters are updated). */
  const packFull = (runId: string) => {
    if ((loose.get(runId) as number) >= CHUNK_ROWS) pack(runId);
  };
  const writeSpecs = db.prepare(SQL.setSpecs);
  const specsOf = (r: ExampleResult): ItemSpec[] => {
    const specs = JSON.parse((readSpecs.get(r.runId) as string | undefined) ?? "[]") as ItemSpec[];
    let added = false;
    for (const p of r.predictions) {
      if (!specs.some((s) => s.name === p.item)) {
        specs.push(inferSpec(p.item, [p]));
        added = true;
      }
    }
    if (added) writeSpecs.run(JSON.stringify(specs), r.runId);
    return specs;
  };
  const rows = (r: ExampleResult) => {
    example.run({
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
    });
    const specs = specsOf(r);
    for (const p of r.predictions) {
      const index = specs.findIndex((s) => s.name === p.item);
      values.run(itemValuesParams(r.runId, index, itemValues(specs[index], r, p)));
    }
  };
  const single = db.transaction((r: ExampleResult) => {
    rows(r);
    counters.run(countersOf(r));
    packFull(r.runId);
  });
  const many = db.transaction((group: ExampleResult[]) => {
    const sums = new Map<string, Record<string, number | string>>();
    for (const r of group) {
      rows(r);
      const c = countersOf(r);
      const sum = sums.get(r.runId);
      if (!sum) sums.set(r.runId, c);
      else for (const key of Object.keys(c)) if (key !== "runId") (sum[key] as number) += c[key] as number;
    }
    for (const sum of sums.values()) counters.run(sum);
    for (const runId of sums.keys()) packFull(runId);
  });
  return (group) => {
    try {
      many.immediate(group);
      return group.map(() => null);
    } catch {
      return group.map((r) => {
        try {
          single.immediate(r);
          return null;
        } catch (err) {
          return err instanceof Error ? err.message : String(err);
        }
      });
    }
  };
}

/**
 * Commits of answers run at most once per COMMIT_WINDOW_MS on average, with an allowance of COMMIT_BURST: an
 * answer handed to the writer is committed at once, in the call that hands it over, while the allowance lasts, so
 * a run at up to hundreds of answers a second, bursts included, commits each as it arrives and nothing that
 * arrived waits behind other work of the event loop. Once the allowance is spent (a stream of thousands of answers
 * a second), answers wait for the next commit, at most one window later, and are committed together: each commit
 * appends every page it touched to the write-ahead log, and committing each answer of a stream alone would rewrite
 * the same pages again and again. A killed process loses at most the answers of one window (and those it had not
 * read yet), which are asked again.
 */
const COMMIT_WINDOW_MS = 2;

/** Commits that may run at once in a row before answers wait for the window (see COMMIT_WINDOW_MS). */
export const COMMIT_BURST = 16;

/** Most examples one commit takes. */
export const GROUP_COMMIT_MAX = 256;

type Waiting = { write: ExampleResult; resolve: () => void; reject: (e: Error) => void };

/**
 * Gathers writes into groups of at most GROUP_COMMIT_MAX and hands each to `commit`: at once while its allowance
 * of `burst` hand-overs lasts (it grows back by one per `windowMs`), else as soon as it has grown back (at the
 * next write that finds it so, or by a timer), with every write queued meanwhile. No write waits longer than a
 * window once the allowance is spent, however long a stream of writes goes on.
 */
export class GroupQueue {
  private queue: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private allowance: number;
  private at = performance.now();
  private closed = false;

  constructor(
    private readonly commit: (group: Waiting[]) => void,
    private readonly windowMs = 0,
    private readonly burst = COMMIT_BURST,
  ) {
    this.allowance = burst;
  }

  push(write: ExampleResult): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the storage is closed: nothing more can be written"));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (this.refill() >= 1 || this.queue.length >= GROUP_COMMIT_MAX) this.drain();
      else this.timer ??= setTimeout(() => this.drain(), Math.ceil((1 - this.allowance) * this.windowMs));
    });
  }

  /** The allowance now (it grows by one per window, up to `burst`). */
  private refill(): number {
    const now = performance.now();
    const grown = this.windowMs > 0 ? (now - this.at) / this.windowMs : this.burst;
    this.allowance = Math.min(this.burst, this.allowance + grown);
    this.at = now;
    return this.allowance;
  }

  /** Hands over what is queued now. */
  drain(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.queue.length) return;
    this.allowance = Math.max(0, this.refill() - 1);
    while (this.queue.length) this.commit(this.queue.splice(0, GROUP_COMMIT_MAX));
  }

  /** Hands over what is queued, then refuses every later write. */
  close(): void {
    this.drain();
    this.closed = true;
  }
}

/** Stores answered examples on `db`: `write` resolves once the example has committed (in the write-ahead log). */
export class AnswerWriter {
  private readonly groups: GroupQueue;

  constructor(db: Database.Database) {
    const commit = groupCommitter(db);
    this.groups = new GroupQueue((group) => {
      const outcome = commit(group.map((g) => g.write));
      group.forEach((w, i) => {
        const error = outcome[i];
        if (error === null || error === undefined) w.resolve();
        else w.reject(new Error(error));
      });
    }, COMMIT_WINDOW_MS);
  }

  /** Resolves once the example is committed; rejects with the database's error. */
  write(result: ExampleResult): Promise<void> {
    return this.groups.push(result);
  }

  /** Commits what is queued, then stops taking writes. */
  close(): void {
    this.groups.close();
  }
}
