/**
 * Storing answered examples on PostgreSQL: the answers that arrive while a commit is in flight are committed
 * together, in one transaction (an example's row, one item_values row per item, the run's counters), as the
 * SQLite writer does. Idempotent: an example whose (run, example) is already stored, by this process or any
 * other on the database, is skipped whole (its write rejects with AlreadyStored) and counted nowhere, so an
 * answer delivered twice (a queued worker's chunk picked up again) stores nothing twice. Each transaction first
 * locks its runs' rows (in id order, so two writers never deadlock): the item specs, the counters and the
 * packing of a run's loose rows into chunks (same rule as writer.ts) are decided under that lock.
 */

import type { Pool, PoolClient } from "pg";
import type { ItemSpec } from "../../analysis/item-spec.js";
import {
  ANSWER_ROW,
  addCounters,
  answerParams,
  COUNTER_COLUMNS,
  type CounterSums,
  LOOSE_COLUMNS,
  looseValues,
  VALUE_ROW,
  valueRowOf,
} from "../answer-rows.js";
import { AlreadyStored } from "../errors.js";
import { CHUNK_ROWS, packChunks } from "../item-columns.js";
import { valueColumns } from "../item-values.js";
import type { Raw } from "../rows.js";
import type { ExampleResult } from "../types.js";
import { GROUP_COMMIT_MAX } from "../writer.js";
import { columnArrays, inTransaction } from "./pg-client.js";

const ANSWER_FIELDS = Object.keys(ANSWER_ROW) as (keyof typeof ANSWER_ROW)[];
const VALUE_FIELDS = Object.keys(VALUE_ROW) as (keyof typeof VALUE_ROW)[];
const COUNTER_FIELDS = Object.keys(COUNTER_COLUMNS) as (keyof CounterSums)[];

/** An example already stored is skipped: only those inserted are returned. */
const INSERT_EXAMPLES = `INSERT INTO run_examples (${Object.values(ANSWER_ROW).join(", ")})
  SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::integer[],
    $8::text[], $9::text[], $10::text[])
  ON CONFLICT (run_id, example_id) DO NOTHING RETURNING run_id, example_id`;

const INSERT_VALUES = `INSERT INTO item_values (${Object.values(VALUE_ROW).join(", ")})
  SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::smallint[], $5::text[], $6::bytea[])`;

/** The loose rows of a run (every item's values in each), in run order. */
export const LOOSE_VALUES = `SELECT ${LOOSE_COLUMNS} FROM item_values WHERE run_id = $1 ORDER BY ordinal`;

/** Packs every loose row of a run's items into chunks and marks its stored examples packed (run row locked). */
async function pack(c: PoolClient, runId: string, specs: ItemSpec[]): Promise<void> {
  const loose = (await c.query<Raw>(LOOSE_VALUES, [runId])).rows;
  for (const [index, spec] of specs.entries()) {
    const rows = looseValues(loose, index);
    if (!rows.length) continue;
    const next = await c.query<{ n: number }>(
      "SELECT coalesce(max(chunk) + 1, 0) AS n FROM item_chunks WHERE run_id = $1 AND item_index = $2",
      [runId, index],
    );
    let chunk = next.rows[0].n;
    for (const data of packChunks(valueColumns(spec).length, rows)) {
      await c.query("INSERT INTO item_chunks (run_id, item_index, chunk, data) VALUES ($1, $2, $3, $4)", [
        runId,
        index,
        chunk++,
        data,
      ]);
    }
  }
  await c.query("DELETE FROM item_values WHERE run_id = $1", [runId]);
  await c.query("UPDATE runs SET packed = done WHERE id = $1", [runId]);
}

/** Stores a group in the caller's transaction; per example: null (stored) or AlreadyStored (skipped whole). */
async function storeGroup(c: PoolClient, group: ExampleResult[]): Promise<(AlreadyStored | null)[]> {
  const runIds = [...new Set(group.map((r) => r.runId))].sort();
  const locked = await c.query<{ id: string; items: string }>(
    "SELECT id, items FROM runs WHERE id = ANY($1) ORDER BY id FOR UPDATE",
    [runIds],
  );
  const specs = new Map(locked.rows.map((r) => [r.id, JSON.parse(r.items) as ItemSpec[]]));
  const inserted = await c.query<{ run_id: string; example_id: string }>(
    INSERT_EXAMPLES,
    columnArrays(
      group.map((r) => {
        const row = answerParams(r);
        return ANSWER_FIELDS.map((f) => row[f]);
      }),
      ANSWER_FIELDS.length,
    ),
  );
  const fresh = new Set(inserted.rows.map((r) => JSON.stringify([r.run_id, r.example_id])));
  const outcome: (AlreadyStored | null)[] = [];
  const values: unknown[][] = [];
  const sums = new Map<string, CounterSums>();
  const respecified = new Set<string>();
  for (const r of group) {
    const key = JSON.stringify([r.runId, r.exampleId]);
    // the first of a group's copies of one example is the one inserted
    if (!fresh.delete(key)) {
      outcome.push(new AlreadyStored(r.runId, r.exampleId));
      continue;
    }
    outcome.push(null);
    const made = valueRowOf(r, specs.get(r.runId) ?? []);
    if (made.added) respecified.add(r.runId);
    values.push(VALUE_FIELDS.map((f) => made.row[f]));
    addCounters(sums, r);
  }
  if (values.length) await c.query(INSERT_VALUES, columnArrays(values, VALUE_FIELDS.length));
  for (const runId of respecified) {
    await c.query("UPDATE runs SET items = $1 WHERE id = $2", [JSON.stringify(specs.get(runId)), runId]);
  }
  const sets = COUNTER_FIELDS.map((f, k) => `${COUNTER_COLUMNS[f]} = ${COUNTER_COLUMNS[f]} + $${k + 2}`).join(
    ", ",
  );
  for (const [runId, sum] of sums) {
    const { rows } = await c.query<{ loose: number }>(
      `UPDATE runs SET ${sets} WHERE id = $1 RETURNING done - packed AS loose`,
      [runId, ...COUNTER_FIELDS.map((f) => sum[f])],
    );
    if (rows[0].loose >= CHUNK_ROWS) await pack(c, runId, specs.get(runId) ?? []);
  }
  return outcome;
}

type Waiting = { write: ExampleResult; resolve: () => void; reject: (e: Error) => void };

/**
 * Commits answers in groups: the answers handed over while a commit is in flight (or in the same turn of the
 * event loop) go in the next one, at most GROUP_COMMIT_MAX together. When a group's transaction fails (a run that
 * is not there, an ordinal taken twice), each of its answers is committed alone, so one bad answer does not take
 * the others with it.
 */
export class PgAnswerWriter {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly pool: Pool) {}

  /** Resolves once the example is committed; rejects with AlreadyStored or the database's error. */
  write(result: ExampleResult): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the storage is closed: nothing more can be written"));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ write: result, resolve, reject });
      this.flushing ??= new Promise<void>((go) => setImmediate(go)).then(() => this.flush());
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const group = this.queue.splice(0, GROUP_COMMIT_MAX);
      const outcome = await this.commit(group.map((w) => w.write));
      group.forEach((w, i) => {
        const error = outcome[i];
        if (error === null) w.resolve();
        else w.reject(error);
      });
    }
    this.flushing = undefined;
  }

  private async commit(group: ExampleResult[]): Promise<(Error | null)[]> {
    try {
      return await inTransaction(this.pool, (c) => storeGroup(c, group));
    } catch (err) {
      if (group.length === 1) return [err instanceof Error ? err : new Error(String(err))];
      const out: (Error | null)[] = [];
      for (const r of group) out.push(...(await this.commit([r])));
      return out;
    }
  }

  /** Commits what is queued, then refuses every later write. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
  }
}
