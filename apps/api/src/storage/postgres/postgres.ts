/**
 * The PostgreSQL implementation of the storage interface (node-postgres Pool): the SQLite store's semantics on a
 * database that several API instances and workers share. Answers are committed in groups and idempotently
 * (pg-answers.ts), uploads in short transactions hidden while pending (pg-uploads.ts), the schema by numbered
 * migrations (pg-migrations.ts).
 */

import pg from "pg";
import type { Percentiles } from "../../engine/percentiles.js";
import { ANSWER_COLUMNS, type AnswerRow, PAGE_EXAMPLES } from "../answer-rows.js";
import {
  calibrationFromRaw,
  exampleFromRaw,
  likePattern,
  type Raw,
  RUN_INSERT_COLUMNS,
  runFromRaw,
  runPatchValues,
  runToParams,
  SERVER_COLUMNS,
  serverFromRaw,
  serverToParams,
  TOKEN_INFO_COLUMNS,
  tokenFromRaw,
  uploadFromRaw,
} from "../rows.js";
import { type ItemParts, StoreBase } from "../store-base.js";
import type {
  CalibrationRow,
  ExamplePage,
  ExampleResult,
  ExampleRow,
  RunFilter,
  RunMoment,
  RunPatch,
  ServerRow,
  Split,
  StoredRun,
  StoreLocation,
  TokenInfo,
  TokenRow,
  UploadOutline,
  UploadRow,
  WorkbenchStorage,
} from "../types.js";
import { newPgOwner } from "../upload-owner.js";
import { UPLOAD_COMPLETE } from "../upload-sql.js";
import { LOOSE_VALUES, PgAnswerWriter } from "./pg-answers.js";
import { float64sOf, inTransaction, int32sOf, packed, SNAPSHOT } from "./pg-client.js";
import { migratePostgres } from "./pg-migrations.js";
import {
  claimPgUpload,
  discardPgAbandoned,
  discardPgUpload,
  discardPgUploadById,
  fillPgUpload,
  reservePgUpload,
} from "./pg-uploads.js";

/** `$1, $2, ...` for n parameters. */
const params = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(", ");

/** A complete upload (not pending) by name, read on `c` (a transaction's client or the pool). */
/** Packed chunks read a query at a time (of CHUNK_ROWS decisions each): 4 are 16,384 decisions of one item. */
const CHUNKS_A_PAGE = 4;
/** The bytes of a chunk read in one piece (its hex text: 64 KB, under V8's large-object size). */
const SLICE_BYTES = 32_768;

async function completeUpload(c: Pick<pg.Pool, "query">, name: string): Promise<UploadRow | undefined> {
  const { rows } = await c.query<Raw>(`SELECT * FROM datasets WHERE name = $1 AND ${UPLOAD_COMPLETE}`, [
    name,
  ]);
  return rows[0] && uploadFromRaw(rows[0]);
}

/** A database URL without its password (what `path` shows). */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = "";
    return u.toString();
  } catch {
    return "postgres (unreadable URL)";
  }
}

/** The storage over a PostgreSQL database. */
export class PostgresStorage extends StoreBase implements WorkbenchStorage {
  /** The database URL without its password. */
  readonly path: string;
  readonly database: StoreLocation;
  private readonly writer: PgAnswerWriter;
  /**
   * Start-up: the pending uploads of this host's processes that are gone, deleted while the storage is in use;
   * resolves to their names.
   */
  readonly abandoned: Promise<string[]>;
  private readonly closing = new AbortController();
  /**
   * The upload reservations and claims (hidings) this storage has started, in order: every upload read and
   * reservation made after one waits for it, so that, as on SQLite, an upload is reserved or hidden once the call
   * that does it is made.
   */
  private marks: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    url: string,
  ) {
    super();
    this.path = withoutPassword(url);
    this.database = { kind: "postgres", url };
    this.writer = new PgAnswerWriter(pool);
    this.abandoned = discardPgAbandoned(pool, this.closing.signal).catch(() => []);
  }

  /** Runs an upload's reservation or claim after those started before it (see `marks`). */
  private mark<T>(step: () => Promise<T>): Promise<T> {
    const done = this.marks.then(step);
    this.marks = done.catch(() => undefined);
    return done;
  }

  // ---- the reads store-base.ts makes the analysis members of -----------------------------------------

  protected async stateTexts(dataset: string, ids: string[]): Promise<Map<string, string>> {
    await this.marks;
    const { rows } = await this.pool.query<{ id: string; state: string }>(
      `SELECT e.id, e.state FROM examples e JOIN datasets d ON d.name = e.dataset AND d.${UPLOAD_COMPLETE}
       WHERE e.dataset = $1 AND e.id = ANY($2)`,
      [dataset, ids],
    );
    return new Map(rows.map((r) => [r.id, r.state]));
  }

  protected async answerPage(runId: string, after: number, splits?: Split[]): Promise<AnswerRow[]> {
    const { rows } = await this.pool.query<AnswerRow>(
      `SELECT ${ANSWER_COLUMNS} FROM run_examples WHERE run_id = $1 AND ordinal > $2
       AND ($3::text[] IS NULL OR split = ANY($3)) ORDER BY ordinal LIMIT ${PAGE_EXAMPLES}`,
      [runId, after, splits ?? null],
    );
    return rows;
  }

  protected async answersOf(runId: string, exampleIds: string[]): Promise<AnswerRow[]> {
    const { rows } = await this.pool.query<AnswerRow>(
      `SELECT ${ANSWER_COLUMNS} FROM run_examples WHERE run_id = $1 AND example_id = ANY($2)`,
      [runId, exampleIds],
    );
    return rows;
  }

  protected async visitItemParts(
    runId: string,
    itemIndex: number,
    chunk: (bytes: Uint8Array, index: number) => void,
    from = -1,
  ): Promise<ItemParts> {
    return inTransaction(
      this.pool,
      async (c) => {
        // a page of chunks at a time: an item of a million decisions is not held in memory at once
        for (let after = from; ; ) {
          // each chunk in slices: its text (hex, twice its bytes) in short strings that die young, not one
          // large string a chunk that only a full collection frees
          const { rows } = await c.query<{ chunk: number; part: Buffer }>(
            `WITH page AS (
               SELECT chunk, data FROM item_chunks WHERE run_id = $1 AND item_index = $2 AND chunk > $3
               ORDER BY chunk LIMIT ${CHUNKS_A_PAGE})
             SELECT chunk, substring(data FROM s.i * ${SLICE_BYTES} + 1 FOR ${SLICE_BYTES}) AS part
             FROM page CROSS JOIN LATERAL generate_series(0, (length(data) - 1) / ${SLICE_BYTES}) AS s(i)
             ORDER BY chunk, s.i`,
            [runId, itemIndex, after],
          );
          let chunks = 0;
          for (let i = 0; i < rows.length; ) {
            let j = i;
            while (j < rows.length && rows[j].chunk === rows[i].chunk) j++;
            chunk(Buffer.concat(rows.slice(i, j).map((r) => r.part)), rows[i].chunk);
            after = rows[i].chunk;
            chunks++;
            i = j;
          }
          if (chunks < CHUNKS_A_PAGE) break;
        }
        return {
          specs: (await c.query<{ items: string }>("SELECT items FROM runs WHERE id = $1", [runId])).rows[0]
            ?.items,
          loose: (await c.query<Raw>(LOOSE_VALUES, [runId])).rows,
        };
      },
      SNAPSHOT,
    );
  }

  async saveCalibration(row: CalibrationRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO calibrations (id, run_id, created_at, payload) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, payload = excluded.payload`,
      [row.id, row.runId, row.createdAt, JSON.stringify(row.payload)],
    );
  }

  async getCalibration(id: string): Promise<CalibrationRow | undefined> {
    const { rows } = await this.pool.query<Raw>("SELECT * FROM calibrations WHERE id = $1", [id]);
    return rows[0] && calibrationFromRaw(rows[0]);
  }

  async listCalibrations(filter: { runId?: string } = {}): Promise<CalibrationRow[]> {
    const { rows } =
      filter.runId !== undefined
        ? await this.pool.query<Raw>(
            "SELECT * FROM calibrations WHERE run_id = $1 ORDER BY created_at DESC, id",
            [filter.runId],
          )
        : await this.pool.query<Raw>("SELECT * FROM calibrations ORDER BY created_at DESC, id");
    return rows.map(calibrationFromRaw);
  }

  // ---- servers ----------------------------------------------------------------------------------------

  async listServers(): Promise<ServerRow[]> {
    return (await this.pool.query<Raw>("SELECT * FROM servers ORDER BY created_at, id")).rows.map(
      serverFromRaw,
    );
  }

  async getServer(id: string): Promise<ServerRow | undefined> {
    const { rows } = await this.pool.query<Raw>("SELECT * FROM servers WHERE id = $1", [id]);
    return rows[0] && serverFromRaw(rows[0]);
  }

  async insertServer(row: ServerRow): Promise<void> {
    const p = serverToParams(row);
    await this.pool.query(
      `INSERT INTO servers (${SERVER_COLUMNS.join(", ")}) VALUES (${params(SERVER_COLUMNS.length)})`,
      SERVER_COLUMNS.map((c) => p[c]),
    );
  }

  async updateServer(row: ServerRow): Promise<void> {
    const p = serverToParams(row);
    const columns = SERVER_COLUMNS.filter((c) => c !== "id" && c !== "created_at");
    await this.pool.query(
      `UPDATE servers SET ${columns.map((c, i) => `${c} = $${i + 2}`).join(", ")} WHERE id = $1`,
      [row.id, ...columns.map((c) => p[c])],
    );
  }

  async deleteServer(id: string): Promise<void> {
    // its rate lane (engine/rate-shared.ts) goes with it: nothing else names the server's id again
    await inTransaction(this.pool, async (c) => {
      await c.query("DELETE FROM rate_lanes WHERE server_id = $1", [id]);
      await c.query("DELETE FROM servers WHERE id = $1", [id]);
    });
  }

  async countRunsOfServer(id: string): Promise<number> {
    return this.count("SELECT count(*) AS n FROM runs WHERE server_id = $1", id);
  }

  private async count(sql: string, ...args: unknown[]): Promise<number> {
    return Number((await this.pool.query<{ n: string }>(sql, args)).rows[0].n);
  }

  // ---- uploaded datasets (a pending upload, being stored or deleted, is not there: pg-uploads.ts) --------

  async listUploads(): Promise<UploadRow[]> {
    await this.marks;
    const { rows } = await this.pool.query<Raw>(
      `SELECT * FROM datasets WHERE ${UPLOAD_COMPLETE} ORDER BY name`,
    );
    return rows.map(uploadFromRaw);
  }

  async getUpload(name: string): Promise<UploadRow | undefined> {
    await this.marks;
    return completeUpload(this.pool, name);
  }

  async insertUpload(row: UploadRow, examples: ExampleRow[]): Promise<void> {
    const owner = newPgOwner();
    await this.mark(() => reservePgUpload(this.pool, row, owner));
    await fillPgUpload(this.pool, row, examples, owner);
  }

  async deleteUpload(name: string): Promise<void> {
    const owner = newPgOwner();
    if (await this.mark(() => claimPgUpload(this.pool, name, null, owner))) {
      await discardPgUpload(this.pool, name, owner);
    }
  }

  async abandonUpload(upload: string): Promise<void> {
    await discardPgUploadById(this.pool, upload);
  }

  async pageExamples(
    name: string,
    opts: { split?: Split; offset: number; limit: number; q?: string },
  ): Promise<ExamplePage> {
    const args: unknown[] = [name, opts.split ?? null, opts.q ? likePattern(opts.q) : null];
    const where = `e.dataset = $1 AND ($2::text IS NULL OR e.split = $2)
      AND ($3::text IS NULL OR lower(e.state) LIKE $3 OR lower(e.id) LIKE $3)`;
    const complete = `JOIN datasets d ON d.name = e.dataset AND d.${UPLOAD_COMPLETE}`;
    await this.marks;
    // one snapshot, so the count and the page agree
    return inTransaction(
      this.pool,
      async (c) => {
        const total = await c.query<{ n: string }>(
          `SELECT count(*) AS n FROM examples e ${complete} WHERE ${where}`,
          args,
        );
        const page = await c.query<Raw>(
          `SELECT e.* FROM examples e ${complete} WHERE ${where} ORDER BY e.ordinal LIMIT $4 OFFSET $5`,
          [...args, opts.limit, opts.offset],
        );
        return { total: Number(total.rows[0].n), examples: page.rows.map(exampleFromRaw) };
      },
      SNAPSHOT,
    );
  }

  async uploadWithExamples(
    name: string,
  ): Promise<{ upload: UploadRow; examples: readonly ExampleRow[] } | undefined> {
    await this.marks;
    // one snapshot, so the upload and its examples agree
    return inTransaction(
      this.pool,
      async (c) => {
        const upload = await completeUpload(c, name);
        if (!upload) return undefined;
        const { rows } = await c.query<Raw>("SELECT * FROM examples WHERE dataset = $1 ORDER BY ordinal", [
          name,
        ]);
        return { upload, examples: rows.map(exampleFromRaw) };
      },
      SNAPSHOT,
    );
  }

  async uploadOutline(name: string, splits: readonly Split[]): Promise<UploadOutline | undefined> {
    await this.marks;
    return inTransaction(
      this.pool,
      async (c) => {
        const upload = await completeUpload(c, name);
        if (!upload) return undefined;
        // two packed columns, not a row per example: a million examples come back as 5 MB of bytes
        const { rows } = await c.query<{ o: Buffer | null; s: Buffer | null }>(
          `SELECT ${packed("int4send", "ordinal", "ordinal")} AS o,
             ${packed("byte", "array_position($2::text[], split) - 1", "ordinal")} AS s
           FROM examples WHERE dataset = $1 AND split = ANY($2::text[])`,
          [name, splits],
        );
        return { upload, ordinals: int32sOf(rows[0].o), splits: Uint8Array.from(rows[0].s ?? []) };
      },
      SNAPSHOT,
    );
  }

  async uploadExamplesAt(name: string, ordinals: Int32Array): Promise<ExampleRow[]> {
    const { rows } = await this.pool.query<Raw>(
      "SELECT * FROM examples WHERE dataset = $1 AND ordinal = ANY($2::int[]) ORDER BY ordinal",
      [name, Array.from(ordinals)],
    );
    return rows.map(exampleFromRaw);
  }

  async countRunsOfDataset(name: string): Promise<number> {
    return this.count("SELECT count(*) AS n FROM runs WHERE dataset = $1", name);
  }

  // ---- runs -------------------------------------------------------------------------------------------

  async insertRun(run: StoredRun): Promise<void> {
    const p = runToParams(await this.withItems(run));
    await this.pool.query(
      `INSERT INTO runs (${RUN_INSERT_COLUMNS.join(", ")}) VALUES (${params(RUN_INSERT_COLUMNS.length)})`,
      RUN_INSERT_COLUMNS.map((c) => p[c]),
    );
  }

  async getStoredRun(id: string): Promise<StoredRun | undefined> {
    const { rows } = await this.pool.query<Raw>("SELECT * FROM runs WHERE id = $1", [id]);
    return rows[0] && runFromRaw(rows[0]);
  }

  async listStoredRuns(filter: RunFilter = {}): Promise<StoredRun[]> {
    const { rows } = await this.pool.query<Raw>(
      `SELECT * FROM runs WHERE ($1::text IS NULL OR dataset = $1) AND ($2::text IS NULL OR status = $2)
         AND ($3::text IS NULL OR server_id = $3)
       ORDER BY created_at DESC, seq DESC`,
      [filter.dataset ?? null, filter.status ?? null, filter.serverId ?? null],
    );
    return rows.map(runFromRaw);
  }

  async updateRun(id: string, patch: RunPatch, onlyWhile?: RunMoment): Promise<boolean> {
    const values = runPatchValues(patch);
    if (!values.length) return false;
    const sets = values.map(([column], i) => `${column} = $${i + 2}`);
    const args: unknown[] = [id, ...values.map(([, v]) => v)];
    let where = "id = $1";
    if (onlyWhile) {
      where += ` AND status = $${args.length + 1} AND finished_at IS NOT DISTINCT FROM $${args.length + 2}`;
      args.push(onlyWhile.status, onlyWhile.finishedAt);
    }
    const { rowCount } = await this.pool.query(`UPDATE runs SET ${sets.join(", ")} WHERE ${where}`, args);
    return (rowCount ?? 0) > 0;
  }

  async addActiveMs(id: string, ms: number): Promise<void> {
    await this.pool.query("UPDATE runs SET active_ms = active_ms + $2 WHERE id = $1", [id, ms]);
  }

  /** Stores one answered example; rejects with AlreadyStored (errors.ts) when it is stored already. */
  async recordExample(result: ExampleResult): Promise<void> {
    return this.writer.write(result);
  }

  async storedOrdinals(runId: string, from: number, to: number): Promise<Int32Array> {
    const { rows } = await this.pool.query<{ o: Buffer | null }>(
      `SELECT ${packed("int4send", "ordinal", "ordinal")} AS o FROM run_examples
       WHERE run_id = $1 AND ordinal >= $2 AND ordinal < $3`,
      [runId, from, to],
    );
    return int32sOf(rows[0].o);
  }

  async latencyPercentiles(runId: string): Promise<Percentiles> {
    // percentile_disc is the nearest rank: the first time whose share of the ordered times reaches q
    const { rows } = await this.pool.query<{ q: number[] | null }>(
      "SELECT percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY ms) AS q FROM run_examples WHERE run_id = $1",
      [runId],
    );
    const [p50, p90, p99] = (rows[0].q ?? [0, 0, 0]).map((ms) => Math.round(ms * 10) / 10);
    return { p50, p90, p99 };
  }

  async latencies(runId: string): Promise<number[]> {
    // one array, not a row object per example: a live view of a million-example run reads it often
    const { rows } = await this.pool.query<{ ms: Buffer | null }>(
      `SELECT ${packed("float8send", "ms", "ms")} AS ms FROM run_examples WHERE run_id = $1`,
      [runId],
    );
    return Array.from(float64sOf(rows[0].ms));
  }

  async servedModels(runId: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ model: string }>(
      `SELECT DISTINCT coalesce(e.served_by, r.model) AS model FROM run_examples e JOIN runs r ON r.id = e.run_id
       WHERE e.run_id = $1 AND e.failed = 0`,
      [runId],
    );
    return rows.map((r) => r.model).sort();
  }

  async deleteRun(id: string): Promise<void> {
    // its answers, item values and chunks go with it (ON DELETE CASCADE)
    await inTransaction(this.pool, async (c) => {
      await c.query("DELETE FROM calibrations WHERE run_id = $1", [id]);
      await c.query("DELETE FROM runs WHERE id = $1", [id]);
    });
  }

  /**
   * "ok" when every run's counters agree with its stored rows: `done` is the number of its stored examples and
   * `packed` is at most `done`; else one line per run that differs.
   */
  // ---- person tokens --------------------------------------------------------------------------------

  async insertToken(row: TokenRow): Promise<void> {
    await this.pool.query(
      "INSERT INTO tokens (id, name, hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5)",
      [row.id, row.name, row.hash, row.createdAt, row.revokedAt],
    );
  }

  async listTokens(): Promise<TokenInfo[]> {
    const { rows } = await this.pool.query(
      `SELECT ${TOKEN_INFO_COLUMNS} FROM tokens ORDER BY created_at, id`,
    );
    return (rows as Raw[]).map(tokenFromRaw);
  }

  async revokeToken(name: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      "UPDATE tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL",
      [new Date().toISOString(), name],
    );
    return (rowCount ?? 0) > 0;
  }

  async tokenByHash(hash: string): Promise<TokenInfo | undefined> {
    const { rows } = await this.pool.query(
      `SELECT ${TOKEN_INFO_COLUMNS} FROM tokens WHERE hash = $1 AND revoked_at IS NULL`,
      [hash],
    );
    return rows.length ? tokenFromRaw(rows[0] as Raw) : undefined;
  }

  async hasActiveTokens(): Promise<boolean> {
    const { rows } = await this.pool.query("SELECT 1 FROM tokens WHERE revoked_at IS NULL LIMIT 1");
    return rows.length > 0;
  }

  async integrityCheck(): Promise<string> {
    const { rows } = await this.pool.query<{ id: string; done: number; packed: number; stored: string }>(
      `SELECT r.id, r.done, r.packed, coalesce(e.n, 0) AS stored FROM runs r
       LEFT JOIN (SELECT run_id, count(*) AS n FROM run_examples GROUP BY run_id) e ON e.run_id = r.id
       WHERE r.done <> coalesce(e.n, 0) OR r.packed > r.done ORDER BY r.id`,
    );
    if (!rows.length) return "ok";
    return rows
      .map((r) => `run ${r.id}: done ${r.done}, packed ${r.packed}, ${r.stored} examples stored`)
      .join("\n");
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.abandoned;
    await this.writer.close();
    await this.pool.end();
  }
}

/** Opens the PostgreSQL storage at `url` (a postgres:// URL), migrating the database when needed. */
export async function openPostgresStorage(url: string): Promise<PostgresStorage> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // an idle client's connection lost (the server restarted): the pool drops it; the next query reconnects
  pool.on("error", () => {});
  try {
    await migratePostgres(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return new PostgresStorage(pool, url);
}
