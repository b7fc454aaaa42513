/**
 * Storing answered examples: each example (its request facts, one row per item, the run's counters) is one
 * transaction. The statements' parameters are built on the main thread; the transaction runs on a writer
 * thread with its own connection, so the run engine's event loop never waits for the disk. `write` resolves
 * once the transaction has committed: an example counts as stored only then.
 */

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { DecisionRecord } from "@decision-workbench/scorer";
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

// A CommonJS script (eval), so the thread needs no build step and no loader in tests.
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 10000");
db.pragma("synchronous = " + workerData.synchronous);
db.pragma("wal_autocheckpoint = " + workerData.autocheckpoint);
db.pragma("foreign_keys = ON");
const example = db.prepare(workerData.sql.example);
const prediction = db.prepare(workerData.sql.prediction);
const counters = db.prepare(workerData.sql.counters);
const tx = db.transaction((w) => {
  example.run(w.example);
  for (const p of w.predictions) prediction.run(p);
  counters.run(w.counters);
});
parentPort.on("message", (m) => {
  if (m.stop) {
    db.close();
    parentPort.postMessage({ stopped: true });
    parentPort.close();
    return;
  }
  try {
    tx(m.write);
    parentPort.postMessage({ id: m.id });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  }
});
`;

/** The writer thread of one database file. */
export class ExampleWriter {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private next = 0;
  private failure: Error | null = null;
  private stopped: Promise<void> | undefined;

  constructor(path: string, synchronous: string, autocheckpoint: number) {
    const module = createRequire(import.meta.url).resolve("better-sqlite3");
    this.worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { module, path, synchronous, autocheckpoint, sql: RECORD_SQL },
    });
    this.worker.unref();
    this.worker.on("message", (m: { id?: number; error?: string }) => {
      if (m.id === undefined) return;
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve();
    });
    const fail = (err: Error) => {
      this.failure = err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on("error", (err) => fail(new Error(`the storage writer thread failed: ${err.message}`)));
    this.worker.on("exit", () => fail(new Error("the storage writer thread has stopped")));
  }

  /** Commits one example; resolves once it is on disk (in the write-ahead log). */
  write(write: ExampleWrite): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, write });
    }).finally(() => {
      if (this.waiting.size === 0) this.worker.unref();
    });
  }

  /** Lets queued writes finish, then closes the thread's connection. */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      if (this.failure) return resolve();
      this.worker.once("exit", () => resolve());
      this.worker.postMessage({ stop: true });
      setTimeout(() => void this.worker.terminate().then(() => resolve()), 10_000).unref();
    });
    return this.stopped;
  }
}
