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

/**
 * A column aggregated as one bytea of its values' binary forms in order (`int4send`, `float8send`, one byte):
 * a million values come back as one 4-8 MB buffer, not as a million numbers parsed from an array's text.
 */
export function packed(send: "int4send" | "float8send" | "byte", expr: string, order: string): string {
  const value = send === "byte" ? `set_byte('\\x00'::bytea, 0, ${expr})` : `${send}(${expr})`;
  return `string_agg(${value}, ''::bytea ORDER BY ${order})`;
}

/** The values of a `packed` int4send aggregate (none when it aggregated no row). */
export function int32sOf(bytes: Buffer | null): Int32Array {
  const out = new Int32Array((bytes?.length ?? 0) / 4);
  for (let i = 0; i < out.length; i++) out[i] = (bytes as Buffer).readInt32BE(4 * i);
  return out;
}

/** The values of a `packed` float8send aggregate (none when it aggregated no row). */
export function float64sOf(bytes: Buffer | null): Float64Array {
  const out = new Float64Array((bytes?.length ?? 0) / 8);
  for (let i = 0; i < out.length; i++) out[i] = (bytes as Buffer).readDoubleBE(8 * i);
  return out;
}
