/**
 * WAL checkpoints on a worker thread. A checkpoint syncs the write-ahead log and the database file to disk;
 * done by the connection that commits, it would stall the run engine's event loop for the length of an
 * fsync. The main connection only appends to the log (autocheckpoint off but for a large safety limit); this
 * thread's own connection copies the log into the database every half second (PASSIVE: never blocks writers).
 */

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** Milliseconds between two checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 500;

// A CommonJS script (eval), so the worker needs no build step and no loader in tests.
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 5000");
const checkpoint = () => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
};
const timer = setInterval(checkpoint, workerData.interval);
parentPort.on("message", () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.postMessage("stopped");
  parentPort.close();
});
`;

/** The checkpoint thread of one database file. */
export class Checkpointer {
  private readonly worker: Worker;
  private stopped: Promise<void> | undefined;

  constructor(path: string, interval = CHECKPOINT_INTERVAL_MS) {
    const module = createRequire(import.meta.url).resolve("better-sqlite3");
    this.worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { module, path, interval },
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    this.worker.unref();
    this.worker.on("error", () => {
      // Checkpoints fall back to the main connection's safety limit.
    });
  }

  /** Runs a last checkpoint and ends the thread. */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      const done = () => resolve();
      this.worker.ref();
      this.worker.once("message", done);
      this.worker.once("exit", done);
      this.worker.postMessage("stop");
      setTimeout(() => void this.worker.terminate().then(done, done), 5000).unref();
    });
    return this.stopped;
  }
}
