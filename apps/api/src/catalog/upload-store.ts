/**
 * The upload thread's own connection to the workbench's SQLite file: whether a name is taken, and the one
 * transaction that stores an upload with all its examples. The rows are written exactly as
 * SqliteStorage.insertUpload writes them (same tables, columns and JSON), so the main connection reads them
 * back as any other upload; its event loop never spends the seconds a million rows take.
 */

import Database from "better-sqlite3";
import { ApiError, conflict } from "../errors.js";
import type { ExampleRow, UploadRow } from "../storage/types.js";

/** 409 dataset_exists for a name already uploaded. */
export function uploadExists(name: string): ApiError {
  return conflict(
    `a dataset named ${JSON.stringify(name)} is already uploaded; delete it first (DELETE /api/datasets/${name}) or give the task another name`,
    "dataset_exists",
  );
}

/** One connection of the upload thread. */
export class UploadStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    if (path === ":memory:") {
      throw new ApiError(500, "internal_error", "uploads need a database file, not an in-memory database");
    }
    this.db = new Database(path, { fileMustExist: true });
    // Waiting for the write lock here blocks only this thread; the main connection's writes are short.
    this.db.pragma("busy_timeout = 60000");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("foreign_keys = ON");
  }

  /** True when an upload of that name is stored. */
  has(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM datasets WHERE name = ?").get(name) !== undefined;
  }

  /**
   * Stores the upload and its examples in one transaction (all or nothing); 409 when the name was taken
   * meanwhile. The list is consumed: each example is let go once its row is made, so the examples and their
   * rows are not all held at once.
   */
  insert(row: UploadRow, examples: (ExampleRow | undefined)[]): void {
    const head = this.db.prepare(
      "INSERT INTO datasets (name, task, hash, examples, splits, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const ex = this.db.prepare(
      "INSERT INTO examples (dataset, ordinal, id, split, state, labels, meta) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    try {
      this.db
        .transaction(() => {
          head.run(
            row.name,
            JSON.stringify(row.task),
            row.hash,
            row.examples,
            JSON.stringify(row.splits),
            row.createdAt,
          );
          for (let i = 0; i < examples.length; i++) {
            const e = examples[i] as ExampleRow;
            examples[i] = undefined;
            const meta = e.meta === undefined || e.meta === null ? null : JSON.stringify(e.meta);
            ex.run(row.name, i, e.id, e.split, JSON.stringify(e.state), JSON.stringify(e.labels), meta);
          }
        })
        .immediate();
    } catch (err) {
      if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") throw uploadExists(row.name);
      throw err;
    }
  }

  close(): void {
    this.db.close();
  }
}
