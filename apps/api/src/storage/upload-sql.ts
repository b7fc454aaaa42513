/**
 * Storing and deleting an uploaded dataset in short transactions, on any connection to the file: the API's
 * (SqliteStorage) and the upload thread's (catalog/upload-store.ts) use these statements and functions, so both
 * write the same rows.
 *
 * An upload is stored in three steps: its `datasets` row is inserted with `pending` set to its owner
 * (upload-owner.ts), which reserves the name while every reader skips the row; its examples are inserted in
 * transactions that each hold the write lock for about UPLOAD_PACE.chunkMs, with UPLOAD_PACE.gapMs between them
 * in which other connections write; then `pending` is cleared and the whole upload appears at once. A failed or
 * cancelled upload is deleted the same way, examples first, its `datasets` row last. Each transaction first
 * checks the row is still pending under the same owner, so an upload whose reservation was taken over (its
 * owner judged gone) writes nothing more. A million rows hold the lock in one transaction for 2-3 s, during
 * which every other write waits (on the API's connection, with its event loop).
 */

import type Database from "better-sqlite3";
import { exampleToParams, uploadToParams } from "./rows.js";
import type { ExampleRow, UploadRow } from "./types.js";
import { newOwner, ownerGone, ownerOf } from "./upload-owner.js";

/** The statements of uploads. A complete upload's row has `pending` null (UPLOAD_COMPLETE). */
export const UPLOAD_SQL = {
  reserve:
    "INSERT INTO datasets (name, task, hash, examples, splits, created_at, pending, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  example:
    "INSERT INTO examples (dataset, ordinal, id, split, state, labels, meta) VALUES (?, ?, ?, ?, ?, ?, ?)",
  owned: "SELECT 1 FROM datasets WHERE name = ? AND pending = ?",
  complete: "UPDATE datasets SET pending = NULL WHERE name = ? AND pending = ?",
  /** Moves a row from one owner (null: complete) to another. */
  claim: "UPDATE datasets SET pending = ? WHERE name = ? AND pending IS ?",
  pendingOf: "SELECT pending FROM datasets WHERE name = ?",
  allPending: "SELECT name, pending FROM datasets WHERE pending IS NOT NULL ORDER BY name",
  discardExamples: `DELETE FROM examples WHERE dataset = ? AND ordinal IN
    (SELECT ordinal FROM examples WHERE dataset = ? ORDER BY ordinal LIMIT 500)`,
  discardRow: "DELETE FROM datasets WHERE name = ? AND pending = ?",
} as const;

/** What SQL adds to a `datasets` query so that only complete uploads are read. */
export const UPLOAD_COMPLETE = "pending IS NULL";

/** Examples deleted by one UPLOAD_SQL.discardExamples. */
const DISCARD_BATCH = 500;

/**
 * How long each transaction of an upload holds the write lock (it stops taking rows once `chunkMs` have passed)
 * and the pause after it, in which other connections' writes (waiting in SQLite's busy handler, which retries
 * after 1, 2, 5, 10, 15 and 20 ms) take the lock.
 */
export interface UploadPace {
  chunkMs: number;
  gapMs: number;
}

/** The pace of uploads: see apps/api/README.md for the figures it was chosen from. */
const UPLOAD_PACE: UploadPace = { chunkMs: 20, gapMs: 20 };

/** The upload's reservation was taken over (its owner judged gone) or removed before it was complete. */
export class UploadCancelled extends Error {
  constructor(readonly dataset: string) {
    super(`the upload of ${JSON.stringify(dataset)} was cancelled before it was complete`);
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Inserts an upload's row, pending under `owner`: the name is reserved. Throws SQLite's error when taken. */
export function reserveUpload(db: Database.Database, row: UploadRow, owner: string): void {
  db.prepare(UPLOAD_SQL.reserve).run(uploadToParams(row, owner));
}

/**
 * Inserts the examples of an upload reserved by `owner`, in transactions of at most `pace.chunkMs`. The rows of
 * the next transaction are made (JSON) during the pause, outside the lock; the examples are read once, in order,
 * as rows are made (each let go once its row is made). Throws UploadCancelled when the reservation is no longer
 * `owner`'s.
 */
export async function insertExamples(
  db: Database.Database,
  name: string,
  owner: string,
  examples: Iterable<ExampleRow>,
  pace: UploadPace = UPLOAD_PACE,
): Promise<void> {
  const insert = db.prepare(UPLOAD_SQL.example);
  const owned = db.prepare(UPLOAD_SQL.owned);
  const source = examples[Symbol.iterator]();
  let made: ReturnType<typeof exampleToParams>[] = [];
  let at = 0; // made[at] is the next row to insert
  let next = 0; // the ordinal of the next example to make a row of
  let more = true; // examples are left to make rows of
  let wanted = 256; // rows made ahead: what the last transaction took, and a quarter more
  const chunk = db.transaction((): number => {
    if (!owned.get(name, owner)) throw new UploadCancelled(name);
    const deadline = performance.now() + pace.chunkMs;
    const from = at;
    while (at < made.length) {
      insert.run(made[at++]);
      if (performance.now() >= deadline) break;
    }
    return at - from;
  });
  let first = true;
  while (more || at < made.length) {
    const t0 = performance.now();
    if (made.length - at < wanted) {
      made = made.slice(at);
      at = 0;
      while (more && made.length < wanted) {
        const e = source.next();
        if (e.done) more = false;
        else made.push(exampleToParams(name, next++, e.value));
      }
    }
    if (!first) await pause(Math.max(0, pace.gapMs - (performance.now() - t0)));
    first = false;
    const rows = chunk.immediate();
    wanted = at < made.length ? Math.ceil(rows * 1.25) : Math.min(2 * wanted, 1 << 20);
  }
}

/**
 * Deletes an upload reserved by `owner`: its examples in transactions of at most `pace.chunkMs`, then its row.
 * Stops when the reservation is no longer `owner`'s, or between transactions once `signal` is aborted (the rows
 * left stay pending under `owner`: see discardAbandoned).
 */
export async function discardUpload(
  db: Database.Database,
  name: string,
  owner: string,
  pace: UploadPace = UPLOAD_PACE,
  signal?: AbortSignal,
): Promise<void> {
  const examples = db.prepare(UPLOAD_SQL.discardExamples);
  const owned = db.prepare(UPLOAD_SQL.owned);
  const row = db.prepare(UPLOAD_SQL.discardRow);
  /** One transaction; true when there is more to delete. */
  const chunk = db.transaction((): boolean => {
    if (!owned.get(name, owner)) return false;
    const deadline = performance.now() + pace.chunkMs;
    do {
      if (examples.run(name, name).changes < DISCARD_BATCH) {
        row.run(name, owner);
        return false;
      }
    } while (performance.now() < deadline);
    return true;
  });
  while (chunk.immediate()) {
    if (signal?.aborted) return;
    await pause(pace.gapMs);
  }
}

/** Moves an upload from owner `from` (null: a complete upload) to `to`; false when it is not `from`'s. */
export function claimUpload(db: Database.Database, name: string, from: string | null, to: string): boolean {
  return db.prepare(UPLOAD_SQL.claim).run(to, name, from).changes === 1;
}

/**
 * Stores an upload: reserved, its examples inserted, then complete. Throws SQLite's constraint error when the
 * name is taken; on any later failure the rows written are deleted before the error is thrown.
 */
export async function writeUpload(
  db: Database.Database,
  row: UploadRow,
  examples: Iterable<ExampleRow>,
  owner: string = newOwner(),
  pace: UploadPace = UPLOAD_PACE,
): Promise<void> {
  reserveUpload(db, row, owner);
  try {
    await insertExamples(db, row.name, owner, examples, pace);
    if (db.prepare(UPLOAD_SQL.complete).run(row.name, owner).changes !== 1) {
      throw new UploadCancelled(row.name);
    }
  } catch (err) {
    await discardUpload(db, row.name, owner, pace);
    throw err;
  }
}

/**
 * Whether a name is free for an upload: "complete" (an upload of that name is stored), "pending" (one is being
 * stored by a live owner) or "free". A pending upload whose owner is gone is deleted first (then "free").
 */
export async function uploadNameState(
  db: Database.Database,
  name: string,
  pace: UploadPace = UPLOAD_PACE,
): Promise<"complete" | "pending" | "free"> {
  const found = db.prepare(UPLOAD_SQL.pendingOf).get(name) as { pending: string | null } | undefined;
  if (!found) return "free";
  if (found.pending === null) return "complete";
  if (!ownerGone(found.pending)) return "pending";
  await discardAbandoned(db, pace, undefined, [{ name, pending: found.pending }]);
  return (db.prepare(UPLOAD_SQL.pendingOf).get(name) as unknown) === undefined ? "free" : "pending";
}

/**
 * Deletes the pending uploads whose owner is gone (a process that died while storing one): each is claimed by
 * this process first (so that two cleaners do not both delete, and a cleaner that dies leaves it to the next),
 * then deleted in short transactions. Returns the names deleted.
 */
export async function discardAbandoned(
  db: Database.Database,
  pace: UploadPace = UPLOAD_PACE,
  signal?: AbortSignal,
  rows = db.prepare(UPLOAD_SQL.allPending).all() as { name: string; pending: string }[],
): Promise<string[]> {
  const names: string[] = [];
  for (const { name, pending } of rows) {
    if (signal?.aborted) break;
    if (!ownerGone(pending)) continue;
    const mine = newOwner();
    if (!claimUpload(db, name, pending, mine)) continue;
    await discardUpload(db, name, mine, pace, signal);
    names.push(name);
  }
  return names;
}

/** Deletes what the upload with this id (one of this process's, ended before it was complete) left pending. */
export async function discardUploadById(
  db: Database.Database,
  upload: string,
  pace: UploadPace = UPLOAD_PACE,
): Promise<void> {
  const rows = db.prepare(UPLOAD_SQL.allPending).all() as { name: string; pending: string }[];
  for (const { name, pending } of rows) {
    if (ownerOf(pending)?.upload === upload) {
      await discardUpload(db, name, pending, pace);
    }
  }
}
