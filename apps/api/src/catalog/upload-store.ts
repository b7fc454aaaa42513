/**
 * The upload thread's own connection to the workbench's SQLite file: whether a name is free, and the short
 * transactions that store an upload (storage/upload-sql.ts, the statements SqliteStorage.insertUpload uses too),
 * so the main connection reads it back as any other upload once it is complete. The API's event loop never
 * spends the seconds a million rows take, and its writes wait for the write lock at most one short transaction.
 */

import Database from "better-sqlite3";
import { ApiError, conflict } from "../errors.js";
import type { ExampleRow, UploadRow } from "../storage/types.js";
import { UploadCancelled, uploadNameState, writeUpload } from "../storage/upload-sql.js";

/** 409 dataset_exists for a name already uploaded. */
export function uploadExists(name: string): ApiError {
  return conflict(
    `a dataset named ${JSON.stringify(name)} is already uploaded; delete it first (DELETE /api/datasets/${name}) or give the task another name`,
    "dataset_exists",
  );
}

/** 409 dataset_exists for a name another upload is being stored under. */
export function uploadInProgress(name: string): ApiError {
  return conflict(
    `an upload of a dataset named ${JSON.stringify(name)} is in progress; wait for it to finish (GET /api/datasets/${name}) or give the task another name`,
    "dataset_exists",
  );
}

/** What the upload thread stores an upload through: its own connection to the workbench's database. */
export interface UploadTarget {
  /** 409 when an upload of that name is stored or being stored (a gone owner's pending upload is deleted). */
  checkName(name: string): Promise<void>;
  /** Stores the upload hidden until complete; 409 when the name was taken meanwhile; nothing left on failure. */
  insert(row: UploadRow, examples: Iterable<ExampleRow>): Promise<void>;
  close(): void;
}

/** One SQLite connection of the upload thread, storing uploads as `owner` (storage/upload-owner.ts). */
export class UploadStore implements UploadTarget {
  private readonly db: Database.Database;

  constructor(
    path: string,
    private readonly owner: string,
  ) {
    if (path === ":memory:") {
      throw new ApiError(500, "internal_error", "uploads need a database file, not an in-memory database");
    }
    this.db = new Database(path, { fileMustExist: true });
    // Waiting for the write lock here blocks only this thread; the main connection's writes are short.
    this.db.pragma("busy_timeout = 60000");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("foreign_keys = ON");
    // SQLite's own default page cache (2 MB), not better-sqlite3's 16 MB: the thread's memory stays with the process
    // after it ends, and the larger cache made a 100k upload only 2 % faster (apps/api/bench/RESULTS.md)
    this.db.pragma("cache_size = -2000");
  }

  /**
   * 409 when an upload of that name is stored or being stored. A pending upload whose owner is gone (a
   * process that died while storing it) is deleted first, and its name is free.
   */
  async checkName(name: string): Promise<void> {
    const state = await uploadNameState(this.db, name);
    if (state === "complete") throw uploadExists(name);
    if (state === "pending") throw uploadInProgress(name);
  }

  /**
   * Stores the upload and its examples, hidden until complete; 409 when the name was taken meanwhile. The
   * examples are read once, as their rows are made. On a failure nothing is left stored.
   */
  async insert(row: UploadRow, examples: Iterable<ExampleRow>, retry = true): Promise<void> {
    // whether any example was read: only a reservation refused before that is tried again
    let read = false;
    const once = {
      *[Symbol.iterator]() {
        read = true;
        yield* examples;
      },
    };
    try {
      await writeUpload(this.db, row, once, this.owner);
    } catch (err) {
      if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY" && !read) {
        // taken since the name was checked; free again when the taker was a gone owner's, now deleted
        await this.checkName(row.name);
        if (retry) return this.insert(row, examples, false);
        throw uploadInProgress(row.name);
      }
      if (err instanceof UploadCancelled)
        throw conflict(`${err.message}; upload it again`, "upload_cancelled");
      throw err;
    }
  }

  close(): void {
    this.db.close();
  }
}
