/**
 * The upload thread's own connection to a PostgreSQL store: the same two steps as upload-store.ts (is the name
 * free; store the upload hidden until complete) with storage/postgres/pg-uploads.ts's transactions.
 */

import pg from "pg";
import { conflict } from "../errors.js";
import { discardPgAbandoned, fillPgUpload, reservePgUpload } from "../storage/postgres/pg-uploads.js";
import type { ExampleRow, UploadRow } from "../storage/types.js";
import { UploadCancelled } from "../storage/upload-sql.js";
import { type UploadTarget, uploadExists, uploadInProgress } from "./upload-store.js";

/** PostgreSQL's unique-violation code: the name was reserved by another upload meanwhile. */
const UNIQUE_VIOLATION = "23505";

export class PgUploadStore implements UploadTarget {
  private readonly pool: pg.Pool;

  constructor(
    url: string,
    private readonly owner: string,
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: 2 });
  }

  async checkName(name: string): Promise<void> {
    const state = async () =>
      (
        await this.pool.query<{ pending: string | null }>("SELECT pending FROM datasets WHERE name = $1", [
          name,
        ])
      ).rows[0];
    let found = await state();
    // a pending upload of a process of this host that is gone is deleted first, and its name is free
    if (found?.pending && (await discardPgAbandoned(this.pool)).includes(name)) found = await state();
    if (!found) return;
    throw found.pending === null ? uploadExists(name) : uploadInProgress(name);
  }

  async insert(row: UploadRow, examples: Iterable<ExampleRow>): Promise<void> {
    try {
      await reservePgUpload(this.pool, row, this.owner);
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      await this.checkName(row.name);
      throw uploadInProgress(row.name);
    }
    try {
      await fillPgUpload(this.pool, row, examples, this.owner);
    } catch (err) {
      if (err instanceof UploadCancelled)
        throw conflict(`${err.message}; upload it again`, "upload_cancelled");
      throw err;
    }
  }

  close(): void {
    void this.pool.end();
  }
}
