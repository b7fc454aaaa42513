/**
 * The upload thread (one per upload, started by UploadJob): receives the request's bytes as they arrive, then
 * reads, validates, hashes and stores the dataset on its own database connection (in short transactions, as
 * the pending upload of `owner` until it is complete) and answers with the stored row or the error. The event
 * loop that serves every other request does none of this work.
 */

import { parentPort, workerData } from "node:worker_threads";
import { ApiError } from "../errors.js";
import type { StoreLocation } from "../storage/types.js";
import { storeUpload } from "./upload-dataset.js";
import { type Received, type ReceivedUpload, readUpload } from "./upload-input.js";
import { UploadStore, type UploadTarget } from "./upload-store.js";
import type { ThreadAnswer, ThreadMessage, ThreadNote } from "./upload-thread.js";

const port = parentPort;
if (!port) throw new Error("upload-worker.ts runs as a worker thread (see UploadJob)");
const { database, owner } = workerData as { database: StoreLocation; owner: string };

/**
 * One field's bytes (or the JSON body's), copied into one buffer as they arrive so that each chunk is let go at
 * once: sized from the Content-Length when there is one, else grown by doubling.
 */
class Gathered {
  private buffer: Buffer;
  private length = 0;

  constructor(
    size: number | undefined,
    readonly filename?: string,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(size ?? 64 * 1024);
  }

  write(chunk: Uint8Array): void {
    if (this.length + chunk.length > this.buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.buffer.length, this.length + chunk.length));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length += chunk.length;
  }

  received(): Received {
    return { bytes: this.buffer.subarray(0, this.length), filename: this.filename };
  }
}

/** Bytes received so far, by form field ("body" for a JSON body). */
const parts = new Map<string, Gathered>();
let current = "body";

function received(kind: "json" | "form"): ReceivedUpload {
  const fields = new Map([...parts].map(([name, g]) => [name, g.received()]));
  parts.clear();
  return kind === "json"
    ? { kind, body: fields.get("body") ?? { bytes: new Uint8Array() } }
    : { kind, fields };
}

async function answer(kind: "json" | "form", createdBy: string | null): Promise<ThreadAnswer> {
  try {
    const input = readUpload(received(kind));
    // PostgreSQL's modules are loaded only by a workbench on a shared database
    const store: UploadTarget =
      database.kind === "postgres"
        ? new (await import("./upload-store-pg.js")).PgUploadStore(database.url, owner)
        : new UploadStore(database.path, owner);
    try {
      return { ok: true, row: await storeUpload(input, store, createdBy) };
    } finally {
      store.close();
    }
  } catch (err) {
    if (err instanceof ApiError) {
      return { ok: false, status: err.status, code: err.code, message: err.message, details: err.details };
    }
    const e = err as Error;
    return { ok: false, status: 500, code: "internal_error", message: String(e?.message), stack: e?.stack };
  }
}

port.on("message", (m: ThreadMessage) => {
  if (m.type === "part") {
    current = m.name;
    parts.set(m.name, new Gathered(m.size, m.filename));
  } else if (m.type === "chunk") {
    let part = parts.get(current);
    if (!part) {
      part = new Gathered(undefined);
      parts.set(current, part);
    }
    part.write(m.bytes);
    // its buffer goes back, to carry later chunks
    port.postMessage({ took: m.bytes } satisfies ThreadNote, [m.bytes.buffer as ArrayBuffer]);
  } else {
    void answer(m.kind, m.createdBy).then((a) => {
      port.postMessage(a);
      port.close();
    });
  }
});
