/** What the PostgreSQL store's modules share about talking to the database: transactions and array parameters. */

import type { Pool, PoolClient } from "pg";

/** A read-only transaction that sees one snapshot throughout. */
export const SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

/** Runs `fn` in one transaction on a client of the pool. */
export async function inTransaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
  begin = "BEGIN",
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    try {
      const out = await fn(client);
      await client.query("COMMIT");
      return out;
    } catch (err) {
      await client.query("ROLLBACK");
      throw err;
    }
  } finally {
    client.release();
  }
}

/** Columns of row arrays: one array per column (what `unnest` takes). */
export function columnArrays(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  return Array.from({ length: width }, (_, k) => rows.map((row) => row[k]));
}
