/**
 * Storing and deleting an uploaded dataset on PostgreSQL, with the semantics of storage/upload-sql.ts: the
 * `datasets` row is inserted first with `pending` set to its owner (the name is reserved, every reader skips the
 * row), its examples are inserted in short transactions of UPLOAD_BATCH rows, then `pending` is cleared and the
 * whole upload appears at once. A failed upload is deleted the same way, examples first, its row last. Each
 * transaction first locks the row and checks it is still pending under the same owner, so an upload whose
 * reservation was taken over writes nothing more. The owner also names its host: a process on another machine
 * is never judged gone by this one.
 */

import type { Pool } from "pg";
import { exampleToParams, uploadToParams } from "../rows.js";
import type { ExampleRow, UploadRow } from "../types.js";
import { HOST, newPgOwner, ownerGone, ownerOf } from "../upload-owner.js";
import { UploadCancelled } from "../upload-sql.js";
import { columnArrays, inTransaction } from "./pg-client.js";

/** Examples inserted (or deleted) by one transaction. */
const UPLOAD_BATCH = 2000;

/** Whether the owner of a pending upload is a process of this host that is gone (see upload-owner.ts). */
function pgOwnerGone(pending: string): boolean {
  const owner = ownerOf(pending) as { host?: string } | undefined;
  if (!owner) return true;
  return owner.host === HOST && ownerGone(pending);
}

const OWNED = "SELECT 1 FROM datasets WHERE name = $1 AND pending = $2 FOR UPDATE";

const INSERT_EXAMPLES = `INSERT INTO examples (dataset, ordinal, id, split, state, labels, meta)
  SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])`;

/** Inserts an upload's row, pending under `owner`: the name is reserved. Throws the unique violation when taken. */
export async function reservePgUpload(pool: Pool, row: UploadRow, owner: string): Promise<void> {
  await pool.query(
    `INSERT INTO datasets (name, task, hash, examples, splits, created_at, pending, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    uploadToParams(row, owner),
  );
}

/**
 * Inserts the examples of an upload reserved by `owner`, then makes it complete. On any failure (UploadCancelled
 * when the reservation is no longer `owner`'s) the rows written are deleted before the error is thrown.
 */
export async function fillPgUpload(
  pool: Pool,
  row: UploadRow,
  examples: Iterable<ExampleRow>,
  owner: string,
): Promise<void> {
  /** One transaction of rows, the first with ordinal `at`. */
  const write = (batch: ExampleRow[], at: number) =>
    inTransaction(pool, async (c) => {
      if (!(await c.query(OWNED, [row.name, owner])).rowCount) throw new UploadCancelled(row.name);
      const rows = batch.map((e, i) => exampleToParams(row.name, at + i, e));
      await c.query(INSERT_EXAMPLES, columnArrays(rows, 7));
    });
  try {
    // the examples are read once, in order, a batch at a time
    let batch: ExampleRow[] = [];
    let at = 0;
    for (const e of examples) {
      batch.push(e);
      if (batch.length < UPLOAD_BATCH) continue;
      await write(batch, at);
      at += batch.length;
      batch = [];
    }
    if (batch.length > 0) await write(batch, at);
    const done = await pool.query("UPDATE datasets SET pending = NULL WHERE name = $1 AND pending = $2", [
      row.name,
      owner,
    ]);
    if (done.rowCount !== 1) throw new UploadCancelled(row.name);
  } catch (err) {
    await discardPgUpload(pool, row.name, owner);
    throw err;
  }
}

/** Deletes an upload pending under `owner`: its examples in short transactions, then its row. */
export async function discardPgUpload(pool: Pool, name: string, owner: string): Promise<void> {
  for (let more = true; more; ) {
    more = await inTransaction(pool, async (c) => {
      if (!(await c.query(OWNED, [name, owner])).rowCount) return false;
      const gone = await c.query(
        `DELETE FROM examples WHERE dataset = $1 AND ordinal IN
         (SELECT ordinal FROM examples WHERE dataset = $1 ORDER BY ordinal LIMIT ${UPLOAD_BATCH})`,
        [name],
      );
      if ((gone.rowCount ?? 0) === UPLOAD_BATCH) return true;
      await c.query("DELETE FROM datasets WHERE name = $1 AND pending = $2", [name, owner]);
      return false;
    });
  }
}

/** Moves an upload from owner `from` (null: a complete upload) to `to`; false when it is not `from`'s. */
export async function claimPgUpload(
  pool: Pool,
  name: string,
  from: string | null,
  to: string,
): Promise<boolean> {
  const r = await pool.query(
    "UPDATE datasets SET pending = $1 WHERE name = $2 AND pending IS NOT DISTINCT FROM $3",
    [to, name, from],
  );
  return r.rowCount === 1;
}

/** The pending uploads: name and owner. */
async function pendingUploads(pool: Pool): Promise<{ name: string; pending: string }[]> {
  return (await pool.query("SELECT name, pending FROM datasets WHERE pending IS NOT NULL ORDER BY name"))
    .rows;
}

/**
 * Deletes the pending uploads whose owner, a process of this host, is gone: each is claimed first (so that two
 * cleaners do not both delete), then deleted. Returns the names deleted.
 */
export async function discardPgAbandoned(pool: Pool, signal?: AbortSignal): Promise<string[]> {
  const names: string[] = [];
  for (const { name, pending } of await pendingUploads(pool)) {
    if (signal?.aborted) break;
    if (!pgOwnerGone(pending)) continue;
    const mine = newPgOwner();
    if (!(await claimPgUpload(pool, name, pending, mine))) continue;
    await discardPgUpload(pool, name, mine);
    names.push(name);
  }
  return names;
}

/** Deletes what the upload with this id (one of this process's) left pending. */
export async function discardPgUploadById(pool: Pool, upload: string): Promise<void> {
  for (const { name, pending } of await pendingUploads(pool)) {
    if (ownerOf(pending)?.upload === upload) await discardPgUpload(pool, name, pending);
  }
}
