/**
 * The writer thread: answered examples are committed by a worker thread on its own connection to the database
 * file, so the run engine's event loop spends no time in SQLite. The loop gathers examples into groups
 * (GroupQueue) and posts each as one JSON string (far cheaper to pass than a structured clone); the thread commits
 * it in one transaction and answers with each example's outcome; `write` resolves only then. Groups are committed
 * in the order they were posted.
 */

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import {
  COMMIT_WINDOW_MS,
  type ExampleWire,
  type ExampleWriter,
  exampleParams,
  GROUP_COMMIT_MAX,
  type GroupOutcome,
  GroupQueue,
  groupCommitter,
  RECORD_SQL,
  settle,
  type Waiting,
} from "./writer.js";

/** How the thread's connection is set up (the pragmas a connection does not inherit from the file). */
export interface WriterThreadOptions {
  synchronous: "NORMAL" | "FULL";
  /** `wal_autocheckpoint` of the thread's connection. */
  autocheckpoint: number;
}

// A CommonJS script (eval), so the worker needs no build step and no loader in tests; the commit itself is the
// source text of groupCommitter and exampleParams, the same functions the event-loop writer (InlineWriter) runs.
// Transpilers that keep function names (tsx, vitest) wrap inner functions in a \`__name\` helper, which the
// script defines as a no-op.
const SCRIPT = `
var __name = (f) => f;
const { parentPort, workerData, receiveMessageOnPort } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 5000");
db.pragma("synchronous = " + workerData.synchronous);
db.pragma("foreign_keys = ON");
db.pragma("wal_autocheckpoint = " + workerData.autocheckpoint);
const commit = (${groupCommitter.toString()})(db, workerData.sql, ${exampleParams.toString()});
// Groups that queued up while the thread was committing are committed together, up to workerData.max examples.
parentPort.on("message", (first) => {
  const ids = [];
  const sizes = [];
  const wires = [];
  let m = first;
  for (;;) {
    if (m.close) break;
    const group = JSON.parse(m.group);
    ids.push(m.id);
    sizes.push(group.length);
    for (const w of group) wires.push(w);
    if (wires.length >= workerData.max) break;
    const next = receiveMessageOnPort(parentPort);
    if (!next) break;
    m = next.message;
  }
  if (wires.length) {
    const outcome = commit(wires);
    let at = 0;
    parentPort.postMessage({ done: ids.map((id, k) => [id, outcome.slice(at, (at += sizes[k]))]) });
  }
  if (m.close) {
    db.close();
    parentPort.close();
  }
});
`;

/** Commits answered examples on a worker thread. */
export class ThreadWriter implements ExampleWriter {
  private readonly worker: Worker;
  private readonly groups: GroupQueue;
  private readonly posted = new Map<number, Waiting[]>();
  private nextId = 0;
  private failure: Error | null = null;
  private closing: Promise<void> | undefined;

  constructor(path: string, opts: WriterThreadOptions) {
    const module = createRequire(import.meta.url).resolve("better-sqlite3");
    this.worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { module, path, sql: RECORD_SQL, max: GROUP_COMMIT_MAX, ...opts },
      resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 64 },
    });
    this.worker.unref();
    this.worker.on("message", (m: { done: [number, GroupOutcome][] }) => {
      for (const [id, outcome] of m.done) {
        const group = this.posted.get(id);
        this.posted.delete(id);
        if (group) settle(group, outcome);
      }
      if (this.posted.size === 0) this.worker.unref();
    });
    this.worker.on("error", (err) => this.fail(`the writer thread failed: ${err.message}`));
    this.worker.on("exit", (code) => this.fail(`the writer thread stopped (exit code ${code})`));
    this.groups = new GroupQueue((group) => this.post(group), COMMIT_WINDOW_MS);
  }

  write(write: ExampleWire): Promise<void> {
    // once closing, the queue itself refuses (the thread's exit also counts as a failure then)
    if (this.failure && !this.closing) return Promise.reject(this.failure);
    return this.groups.push(write);
  }

  /** Commits what is queued, waits for every group posted, then ends the thread. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.groups.close();
      if (this.failure) return resolve();
      this.worker.ref();
      const timer = setTimeout(() => void this.worker.terminate(), 10_000);
      timer.unref();
      this.worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ close: true });
    });
    return this.closing;
  }

  private post(group: Waiting[]): void {
    if (this.failure) {
      for (const w of group) w.reject(this.failure);
      return;
    }
    const id = this.nextId++;
    this.posted.set(id, group);
    if (this.posted.size === 1) this.worker.ref();
    this.worker.postMessage({ id, group: JSON.stringify(group.map((g) => g.write)) });
  }

  /** The thread is gone: every write not yet committed fails with the reason, and so does every later one. */
  private fail(reason: string): void {
    if (this.failure) return;
    this.failure = new Error(reason);
    for (const group of this.posted.values()) for (const w of group) w.reject(this.failure);
    this.posted.clear();
  }
}
