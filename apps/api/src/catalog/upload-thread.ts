/**
 * Uploads off the event loop: each upload gets a worker thread (upload-worker.ts) that is handed the request's
 * bytes chunk by chunk as they arrive (copied into a transferred buffer: no large copy or parse is ever done on
 * the event loop) and answers with the stored row or the error. The copies go back and forth: the thread hands
 * each buffer back once it has taken its bytes, and the next chunks are copied into it, so an upload allocates a
 * few buffers however large it is (a new buffer per chunk, each freed only when the thread's garbage collector
 * got to it, left the event loop's heap 42 MB larger for good after a 66 MB upload). At most IN_FLIGHT_BYTES wait
 * for the thread: past that, the request is read no further until it has caught up (it takes a few hundred
 * milliseconds to start, in which a local client sends a whole body). One thread per upload, ended when it
 * answers; the app's close ends any still running. A thread ended part-way leaves its upload pending (hidden),
 * and the job then deletes those rows on the API's connection, in short transactions.
 */

import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { ApiError, type ErrorDetail } from "../errors.js";
import type { StoreLocation, UploadRow } from "../storage/types.js";
import { newOwner, newPgOwner } from "../storage/upload-owner.js";

/** What the event loop sends the thread: a form field starts, bytes of the current one, the end of the body. */
export type ThreadMessage =
  | { type: "part"; name: string; filename?: string; size?: number }
  | { type: "chunk"; bytes: Uint8Array }
  | { type: "end"; kind: "json" | "form"; createdBy: string | null };

/**
 * What the thread says: it took a chunk's bytes and hands back their buffer (any number of times), then its
 * answer (once).
 */
export type ThreadNote = { took: Uint8Array } | ThreadAnswer;

/** What the thread answers, once. */
export type ThreadAnswer =
  | { ok: true; row: UploadRow }
  | {
      ok: false;
      status: number;
      code: string;
      message: string;
      details?: ErrorDetail[];
      stack?: string;
    };

/**
 * Starts the thread: the built upload-worker.js, or, when this module runs from its TypeScript source (the
 * tests), upload-worker.ts through tsx's loader registered in the thread.
 */
function startThread(database: StoreLocation, owner: string): Worker {
  const workerData = { database, owner };
  const self = import.meta.url;
  if (self.endsWith(".js")) return new Worker(new URL("./upload-worker.js", self), { workerData });
  const tsx = pathToFileURL(createRequire(self).resolve("tsx/esm/api")).href;
  const entry = new URL("./upload-worker.ts", self).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

/** Bytes of a body copied for the thread and not yet taken by it, past which the request waits (`drained`). */
export const IN_FLIGHT_BYTES = 1024 * 1024;

/** The size of a copy's buffer (larger when a chunk is): a socket's reads are at most 64 KiB. */
const CHUNK_BYTES = 64 * 1024;

/** Deletes what the upload with this id left pending (SqliteStorage.abandonUpload). */
export type Abandon = (upload: string) => Promise<void>;

/** One upload on its thread. */
export class UploadJob {
  private readonly worker: Worker;
  private readonly answer: Promise<UploadRow>;
  private settled = false;
  /** Bytes posted to the thread that it has not taken yet. */
  private inFlight = 0;
  /** Buffers allocated for copies so far. */
  private allocated = 0;
  /** Buffers the thread handed back, into which the next chunks are copied. */
  private readonly spare: ArrayBuffer[] = [];
  /** Called once the bytes in flight are back under half of IN_FLIGHT_BYTES, or the job has settled. */
  private onDrain: (() => void)[] = [];
  /**
   * Resolves once the thread has exited and, unless it stored its upload, whatever the upload left pending is
   * deleted (a thread ended part-way through leaves its first transactions' rows, hidden).
   */
  readonly ended: Promise<void>;

  constructor(database: StoreLocation, abandon: Abandon) {
    const upload = randomUUID();
    // a PostgreSQL owner names its host: another machine's cleaner never takes it for gone
    this.worker = startThread(database, database.kind === "postgres" ? newPgOwner(upload) : newOwner(upload));
    let stored = false;
    const exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
    this.ended = exited.then(() => (stored ? undefined : abandon(upload))).catch(() => {});
    this.answer = new Promise<UploadRow>((resolve, reject) => {
      const settle = (fn: () => void) => {
        if (this.settled) return;
        this.settled = true;
        this.release();
        fn();
      };
      const answered = (a: ThreadAnswer) => {
        stored = a.ok;
        settle(() => {
          if (a.ok) return resolve(a.row);
          if (a.status < 500) return reject(new ApiError(a.status, a.code, a.message, a.details));
          const err = new Error(`the upload thread failed: ${a.message}`);
          if (a.stack) err.stack = a.stack;
          reject(err);
        });
        void this.worker.terminate();
      };
      this.worker.on("message", (m: ThreadNote) => {
        if ("took" in m) this.took(m.took);
        else answered(m);
      });
      this.worker.once("error", (err) => settle(() => reject(err)));
      this.worker.once("exit", () => settle(() => reject(new Error("the upload thread stopped"))));
    });
    // A job given up before it was awaited must not be an unhandled rejection.
    this.answer.catch(() => {});
  }

  /**
   * A form field starts (or "body", the JSON body): the chunks that follow are its bytes; `size` is their
   * length when known (the Content-Length), so the thread gathers them into one buffer of that size.
   */
  field(name: string, opts: { filename?: string; size?: number } = {}): void {
    this.post({ type: "part", name, ...opts });
  }

  /**
   * Bytes of the body (or of the current form field), in order. False when IN_FLIGHT_BYTES are now waiting for
   * the thread: the caller reads no more of the request until `drained()` resolves.
   */
  write(chunk: Uint8Array): boolean {
    if (this.settled) return true;
    // a copy into a buffer of its own (a spare one when it is large enough), handed over without another copy
    let buffer = (this.spare.at(-1)?.byteLength ?? 0) >= chunk.byteLength ? this.spare.pop() : undefined;
    if (!buffer) {
      buffer = new ArrayBuffer(Math.max(chunk.byteLength, CHUNK_BYTES));
      this.allocated++;
    }
    const bytes = new Uint8Array(buffer, 0, chunk.byteLength);
    bytes.set(chunk);
    this.inFlight += bytes.byteLength;
    this.post({ type: "chunk", bytes }, [bytes.buffer]);
    return this.inFlight < IN_FLIGHT_BYTES;
  }

  /** Resolves once the thread has taken all but half of IN_FLIGHT_BYTES, or has answered or stopped. */
  drained(): Promise<void> {
    if (this.settled || this.inFlight < IN_FLIGHT_BYTES / 2) return Promise.resolve();
    return new Promise((resolve) => this.onDrain.push(resolve));
  }

  /** Bytes the thread has not taken yet (what the event loop holds for it), and buffers allocated for copies. */
  get held(): { pending: number; buffers: number } {
    return { pending: this.inFlight, buffers: this.allocated };
  }

  private took(bytes: Uint8Array): void {
    this.inFlight -= bytes.byteLength;
    if (this.spare.length < IN_FLIGHT_BYTES / CHUNK_BYTES) this.spare.push(bytes.buffer as ArrayBuffer);
    if (this.inFlight < IN_FLIGHT_BYTES / 2) this.release();
  }

  private release(): void {
    for (const resolve of this.onDrain.splice(0)) resolve();
  }

  /**
   * The body is complete: the thread reads, checks and stores the upload; `createdBy`: the person whose token
   * sent it (null: none).
   */
  finish(kind: "json" | "form", createdBy: string | null): Promise<UploadRow> {
    this.post({ type: "end", kind, createdBy });
    return this.answer;
  }

  /** Ends the thread (the request failed or the app is closing); nothing is left stored. */
  abort(): Promise<void> {
    if (!this.settled) void this.worker.terminate();
    return this.ended;
  }

  private post(m: ThreadMessage, transfer: ArrayBuffer[] = []): void {
    if (!this.settled) this.worker.postMessage(m, transfer);
  }
}

/** The running uploads of one app, so that its close ends them. */
export class UploadJobs {
  private readonly running = new Set<UploadJob>();

  constructor(
    private readonly database: StoreLocation,
    private readonly abandon: Abandon,
  ) {}

  /** Starts an upload thread. */
  start(): UploadJob {
    const job = new UploadJob(this.database, this.abandon);
    this.running.add(job);
    void job.ended.then(() => this.running.delete(job));
    return job;
  }

  /** Ends every running upload, and deletes what they left. */
  async close(): Promise<void> {
    await Promise.all([...this.running].map((j) => j.abort()));
  }
}
