/**
 * Storing answered examples: each example (its request facts, one row per item, the run's counters) is written
 * whole in one transaction as soon as the turn of the event loop that received it ends. `write` resolves once
 * the transaction has committed: an example counts as stored (and is never asked again) only then. WAL
 * checkpoints, the only writes that wait for the disk, run on their own thread (checkpointer.ts).
 */

import type { DecisionRecord } from "@decision-workbench/scorer";
import type Database from "better-sqlite3";
import type { ExampleResult } from "./types.js";

/** The three statements of one example's transaction. */
export const RECORD_SQL = {
  example: `INSERT INTO run_examples (run_id, example_id, ordinal, split, ms, served_by, failed, record)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  prediction: `INSERT INTO predictions (run_id, ordinal, item_index, example_id, item, split, gold, status, answer,
    confidence, probabilities, logits, unknown, reason, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  counters: `UPDATE runs SET done = done + 1, answered = answered + ?, unknown = unknown + ?, escalated = escalated + ?,
    errors = errors + ?, input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
    reasoning_tokens = reasoning_tokens + ?, cost = cost + ? WHERE id = ?`,
} as const;

type Param = string | number | null;

/** The parameters of one example's statements. */
export interface ExampleWrite {
  example: Param[];
  predictions: Param[][];
  counters: Param[];
}

function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** The statements' parameters for one answered example. */
export function exampleWrite(r: ExampleResult): ExampleWrite {
  let record: DecisionRecord | Record<string, never> = r.record ?? {};
  if (!r.record && r.predictions[0]) {
    const { reasoning: _reasoning, ...rest } = r.predictions[0].record;
    record = rest;
  }
  let answered = 0;
  let unknown = 0;
  let escalated = 0;
  const predictions = r.predictions.map((p, i): Param[] => {
    if (p.status === "answered") answered++;
    else if (p.status === "unknown") unknown++;
    else escalated++;
    return [
      r.runId,
      r.ordinal,
      i,
      r.exampleId,
      p.item,
      p.split,
      json(p.gold),
      p.status,
      json(p.answer),
      p.confidence,
      json(p.probabilities),
      JSON.stringify(p.logits),
      p.unknown,
      p.reason,
      json(p.record.reasoning),
    ];
  });
  return {
    example: [
      r.runId,
      r.exampleId,
      r.ordinal,
      r.split,
      r.ms,
      r.servedBy,
      r.failed ? 1 : 0,
      JSON.stringify(record),
    ],
    predictions,
    counters: [
      answered,
      unknown,
      escalated,
      r.failed ? 1 : 0,
      r.inputTokens,
      r.outputTokens,
      r.reasoningTokens,
      r.cost,
      r.runId,
    ],
  };
}

/** Most examples one commit takes. */
export const GROUP_COMMIT_MAX = 256;

type Waiting = { write: ExampleWrite; resolve: () => void; reject: (e: Error) => void };

/**
 * Commits answered examples on the connection given: each example whole in one transaction, at the end of the
 * event-loop turn in which it arrived; examples that arrived in the same turn (answers read from several
 * sockets at once) share that transaction. The loss window of a killed process is thus one turn of the loop,
 * and the loop is held for one commit per turn rather than one per example.
 */
export class ExampleWriter {
  private queue: Waiting[] = [];
  private readonly many: (batch: ExampleWrite[]) => void;
  private readonly single: (write: ExampleWrite) => void;

  constructor(db: Database.Database) {
    const example = db.prepare(RECORD_SQL.example);
    const prediction = db.prepare(RECORD_SQL.prediction);
    const counters = db.prepare(RECORD_SQL.counters);
    const one = (w: ExampleWrite) => {
      example.run(w.example);
      for (const p of w.predictions) prediction.run(p);
      counters.run(w.counters);
    };
    this.single = db.transaction(one);
    this.many = db.transaction((batch: ExampleWrite[]) => {
      for (const w of batch) one(w);
    });
  }

  /** Resolves once the example is committed (in the write-ahead log); rejects with the database's error. */
  write(write: ExampleWrite): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (also called before the connection closes). */
  flush(): void {
    while (this.queue.length) {
      const batch = this.queue.splice(0, GROUP_COMMIT_MAX);
      try {
        this.many(batch.map((b) => b.write));
        for (const b of batch) b.resolve();
      } catch {
        // One bad example (e.g. a duplicate) must not take the others with it: commit each alone.
        for (const b of batch) {
          try {
            this.single(b.write);
            b.resolve();
          } catch (err) {
            b.reject(err as Error);
          }
        }
      }
    }
  }
}
