/**
 * Storing answered examples: each example (its request facts, one row per item, the run's counters) is written
 * whole in one transaction, as it arrives, or with the others that arrived in the same window when answers come
 * by the thousand a second (GroupQueue). `write` resolves once the transaction has committed: an example counts
 * as stored (and is never asked again) only then. The transactions run on the event loop's own connection
 * (InlineWriter) or, on a machine with cores to spare, on a writer thread with its own connection
 * (writer-thread.ts). WAL checkpoints, the only writes that wait for the disk, run on their own thread
 * (checkpointer.ts).
 */

import { performance } from "node:perf_hooks";
import type { DecisionRecord } from "@decision-workbench/scorer";
import type Database from "better-sqlite3";
import type { ExampleResult } from "./types.js";

/** The two statements of a group's transaction: one row per example, one update of each run's counters. */
export const RECORD_SQL = {
  example: `INSERT INTO run_examples (run_id, ordinal, example_id, split, ms, served_by, failed, record, items, logits)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  counters: `UPDATE runs SET done = done + ?, answered = answered + ?, unknown = unknown + ?, escalated = escalated + ?,
    errors = errors + ?, input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
    reasoning_tokens = reasoning_tokens + ?, cost = cost + ? WHERE id = ?`,
} as const;

type Param = string | number | null;

/** The parameters of one example's statements. */
export interface ExampleWrite {
  example: Param[];
  counters: Param[];
}

/**
 * One item's prediction as stored (an element of the `items` JSON array of its example's row, in item order):
 * name, gold, status, answer, confidence, probabilities, logits, unknown, reason, reasoning. Absent values are
 * null. The logits are stored apart, in the row's `logits` column (one array per item, in item order), and are
 * null here: the analysis reads every row's items and never the logits, which were ~40 % of the text it parsed.
 */
export type ItemTuple = [
  string,
  string | string[] | null,
  "answered" | "unknown" | "escalated",
  string | string[] | null,
  number | null,
  Record<string, number> | null,
  number[] | null,
  number | null,
  string | null,
  unknown,
];

/**
 * One answered example as it travels to the writer: its fields picked out, nothing serialised yet, so the
 * engine's loop does no more than one JSON.stringify per group (the writer turns it into parameters).
 */
export interface ExampleWire {
  /** run id, example id, ordinal, split, ms, served by, failed (0/1) */
  example: [string, string, number, string, number, string | null, number];
  /** The request's record, without per-item reasoning. */
  record: unknown;
  /** Per item, in item order (undefined is stored as null), without their logits (null). */
  predictions: ItemTuple[];
  /** Per item, in item order: its logits. */
  logits: number[][];
  /** input tokens, output tokens, reasoning tokens, cost */
  usage: [number, number, number, number];
}

/** The wire form of one answered example. */
export function exampleWire(r: ExampleResult): ExampleWire {
  let record: DecisionRecord | Record<string, never> = r.record ?? {};
  if (!r.record && r.predictions[0]) {
    const { reasoning: _reasoning, ...rest } = r.predictions[0].record;
    record = rest;
  }
  return {
    example: [r.runId, r.exampleId, r.ordinal, r.split, r.ms, r.servedBy, r.failed ? 1 : 0],
    record,
    predictions: r.predictions.map((p) => [
      p.item,
      p.gold,
      p.status,
      p.answer,
      p.confidence,
      p.probabilities,
      null,
      p.unknown,
      p.reason,
      p.record.reasoning,
    ]),
    logits: r.predictions.map((p) => p.logits),
    usage: [r.inputTokens, r.outputTokens, r.reasoningTokens, r.cost],
  };
}

/**
 * The statements' parameters of one example: its row (the items and their logits as two JSON arrays) and its
 * counters.
 * Self-contained (no outer reference): the writer thread runs its source text.
 */
export function exampleParams(w: ExampleWire): ExampleWrite {
  const [runId, exampleId, ordinal, split, ms, servedBy, failed] = w.example;
  let answered = 0;
  let unknown = 0;
  let escalated = 0;
  for (const p of w.predictions) {
    if (p[2] === "answered") answered++;
    else if (p[2] === "unknown") unknown++;
    else escalated++;
  }
  return {
    example: [
      runId,
      ordinal,
      exampleId,
      split,
      ms,
      servedBy,
      failed,
      JSON.stringify(w.record),
      JSON.stringify(w.predictions),
      JSON.stringify(w.logits),
    ],
    // done, answered, unknown, escalated, errors, input, output and reasoning tokens, cost; then the run id
    counters: [1, answered, unknown, escalated, failed, ...w.usage, runId],
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
export const COMMIT_WINDOW_MS = 2;

/** Commits that may run at once in a row before answers wait for the window (see COMMIT_WINDOW_MS). */
export const COMMIT_BURST = 16;

/** Most examples one commit takes. */
export const GROUP_COMMIT_MAX = 256;

/** The error of each example of a group (null: committed). */
export type GroupOutcome = (string | null)[];

/**
 * Commits a group of examples on `db` in one immediate transaction, with one update of each run's counters;
 * when that fails (e.g. one duplicate),
 * commits each example alone so that one bad example does not take the others with it. Self-contained (no
 * outer reference): the writer thread runs its source text.
 */
export function groupCommitter(
  db: Database.Database,
  sql: typeof RECORD_SQL,
  params: typeof exampleParams,
): (group: ExampleWire[]) => GroupOutcome {
  const example = db.prepare(sql.example);
  const counters = db.prepare(sql.counters);
  // The row of one example; returns its counters (added up per run over a group: one UPDATE of the run per group).
  const rows = (wire: ExampleWire) => {
    const w = params(wire);
    example.run(w.example);
    return w.counters;
  };
  const single = db.transaction((wire: ExampleWire) => {
    counters.run(rows(wire));
  });
  const many = db.transaction((group: ExampleWire[]) => {
    const sums = new Map<unknown, (string | number | null)[]>();
    for (const wire of group) {
      const c = rows(wire);
      const sum = sums.get(c[9]); // by run id (see exampleParams)
      if (!sum) sums.set(c[9], c.slice());
      else for (let k = 0; k < 9; k++) (sum[k] as number) += c[k] as number;
    }
    for (const sum of sums.values()) counters.run(sum);
  });
  return (group) => {
    try {
      many.immediate(group);
      return group.map(() => null);
    } catch {
      return group.map((w) => {
        try {
          single.immediate(w);
          return null;
        } catch (err) {
          return err instanceof Error ? err.message : String(err);
        }
      });
    }
  };
}

/** Stores answered examples: `write` resolves once the example has committed. */
export interface ExampleWriter {
  /** Resolves once the example is committed (in the write-ahead log); rejects with the database's error. */
  write(write: ExampleWire): Promise<void>;
  /** Commits what is queued, then stops taking writes. */
  close(): Promise<void>;
}

export type Waiting = { write: ExampleWire; resolve: () => void; reject: (e: Error) => void };

/** Settles each waiting write with its outcome. */
export function settle(group: Waiting[], outcome: GroupOutcome): void {
  group.forEach((w, i) => {
    const error = outcome[i];
    if (error === null || error === undefined) w.resolve();
    else w.reject(new Error(error));
  });
}

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

  push(write: ExampleWire): Promise<void> {
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

/** Commits on the caller's own connection, on the event loop (also for in-memory databases, which no thread can share). */
export class InlineWriter implements ExampleWriter {
  private readonly groups: GroupQueue;

  constructor(db: Database.Database) {
    const commit = groupCommitter(db, RECORD_SQL, exampleParams);
    this.groups = new GroupQueue(
      (group) => settle(group, commit(group.map((g) => g.write))),
      COMMIT_WINDOW_MS,
    );
  }

  write(write: ExampleWire): Promise<void> {
    return this.groups.push(write);
  }

  async close(): Promise<void> {
    this.groups.close();
  }
}
