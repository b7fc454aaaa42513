/**
 * The PostgreSQL implementation of the storage interface (node-postgres Pool): the SQLite store's semantics on a
 * database that several API instances and workers share. Answers are committed in groups and idempotently
 * (pg-answers.ts), uploads in short transactions hidden while pending (pg-uploads.ts), the schema by numbered
 * migrations (pg-migrations.ts).
 */

import type { State, Task } from "@decision-workbench/datasets";
import type { DecisionRecord, State as WireState } from "@decision-workbench/scorer";
import pg from "pg";
import { type ItemSpec, taskSpecs } from "../../analysis/item-spec.js";
import { bundledStates, bundledTaskOf } from "../../catalog/bundled.js";
import { columnsOf, decodeColumns, type ItemColumns, joinColumns } from "../item-columns.js";
import { SPLIT_NAMES, valueColumns } from "../item-values.js";
import {
  type AnswerRow,
  calibrationFromRaw,
  exampleFromRaw,
  itemValuesFromRaw,
  predictionOf,
  type Raw,
  runFromRaw,
  runToParams,
  serverFromRaw,
  serverToParams,
  toJson,
  uploadFromRaw,
  wireStateOf,
} from "../rows.js";
import type {
  CalibrationRow,
  ExamplePage,
  ExampleResult,
  ExampleRow,
  PredictionFilter,
  PredictionRow,
  RunPatch,
  RunRow,
  RunStatus,
  ServerRow,
  Split,
  StoredRun,
  UploadRow,
  WorkbenchStorage,
} from "../types.js";
import { UPLOAD_COMPLETE } from "../upload-sql.js";
import { storedItemsOf } from "../writer.js";
import { inTransaction, LOOSE_VALUES, PgAnswerWriter } from "./pg-answers.js";
import { migratePostgres } from "./pg-migrations.js";
import {
  claimPgUpload,
  discardPgAbandoned,
  discardPgUpload,
  discardPgUploadById,
  fillPgUpload,
  newPgOwner,
  reservePgUpload,
} from "./pg-uploads.js";

const SERVER_COLUMNS = [
  "id",
  "name",
  "base_url",
  "base_url_secret",
  "endpoint",
  "models",
  "api_key_secret",
  "extra_body",
  "timeout",
  "retries",
  "backoff",
  "deterministic",
  "embedded",
  "created_at",
  "requests_per_minute",
  "input_tokens_per_minute",
  "input_price_per_million",
  "output_price_per_million",
];

const RUN_INSERT_COLUMNS = [
  "id",
  "dataset",
  "dataset_hash",
  "server_id",
  "server_name",
  "endpoint",
  "model",
  "fingerprint",
  "splits",
  "concurrency",
  "max_len",
  "options",
  "limit_n",
  "status",
  "error",
  "created_at",
  "started_at",
  "finished_at",
  "owner_pid",
  "total",
  "headline",
  "max_cost",
  "max_input_tokens",
  "stop_reason",
  "items",
];

/** The runs column of each field updateRun sets. */
const RUN_PATCH_COLUMNS: Record<keyof RunPatch, string> = {
  status: "status",
  error: "error",
  startedAt: "started_at",
  finishedAt: "finished_at",
  ownerPid: "owner_pid",
  headline: "headline",
  total: "total",
  maxCost: "max_cost",
  maxInputTokens: "max_input_tokens",
  stopReason: "stop_reason",
};

/** `$1, $2, ...` for n parameters. */
const params = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(", ");

function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Answered examples read per page by the prediction reader. */
const PAGE_EXAMPLES = 512;

const ANSWER_COLUMNS = "example_id, split, served_by, items, record, logits, ordinal";

/** A read-only transaction that sees one snapshot throughout. */
const SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

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
export class PostgresStorage implements WorkbenchStorage {
  /** The database URL without its password. */
  readonly path: string;
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
    this.path = withoutPassword(url);
    this.writer = new PgAnswerWriter(pool);
    this.abandoned = discardPgAbandoned(pool, this.closing.signal).catch(() => []);
  }

  /** Runs an upload's reservation or claim after those started before it (see `marks`). */
  private mark<T>(step: () => Promise<T>): Promise<T> {
    const done = this.marks.then(step);
    this.marks = done.catch(() => undefined);
    return done;
  }

  // ---- the analysis members -------------------------------------------------------------------------

  async getRun(id: string): Promise<RunRow | undefined> {
    return this.getStoredRun(id);
  }

  async listRuns(filter: { dataset?: string; status?: RunStatus } = {}): Promise<RunRow[]> {
    return this.listStoredRuns(filter);
  }

  async getTask(dataset: string): Promise<Task | undefined> {
    return bundledTaskOf(dataset) ?? (await this.getUpload(dataset))?.task;
  }

  async getStates(dataset: string, ids: string[]): Promise<Map<string, State>> {
    return this.readStates(dataset, ids, (text) => JSON.parse(text) as State);
  }

  async getWireStates(dataset: string, ids: string[]): Promise<Map<string, WireState>> {
    return this.readStates<WireState>(dataset, ids, wireStateOf);
  }

  /** States of some examples of a complete upload by id, each made from its JSON text by `of`. */
  private async readStates<T>(
    dataset: string,
    ids: string[],
    of: (text: string) => T,
  ): Promise<Map<string, T>> {
    if (bundledTaskOf(dataset)) return (await bundledStates(dataset, ids)) as Map<string, T>;
    await this.marks;
    const { rows } = await this.pool.query<{ id: string; state: string }>(
      `SELECT e.id, e.state FROM examples e JOIN datasets d ON d.name = e.dataset AND d.${UPLOAD_COMPLETE}
       WHERE e.dataset = $1 AND e.id = ANY($2)`,
      [dataset, ids],
    );
    return new Map(rows.map((r) => [r.id, of(r.state)]));
  }

  async listPredictions(runId: string, filter: PredictionFilter = {}): Promise<PredictionRow[]> {
    const out: PredictionRow[] = [];
    for await (const page of this.predictionPages(runId, filter)) for (const r of page) out.push(r);
    return out;
  }

  async *predictionPages(runId: string, filter: PredictionFilter = {}): AsyncGenerator<PredictionRow[]> {
    const splits = filter.split === undefined ? null : [filter.split].flat();
    // each page starts after the previous page's last example: examples written meanwhile are not seen twice
    for (let after = -1; ; ) {
      const { rows } = await this.pool.query<AnswerRow>(
        `SELECT ${ANSWER_COLUMNS} FROM run_examples WHERE run_id = $1 AND ordinal > $2
         AND ($3::text[] IS NULL OR split = ANY($3)) ORDER BY ordinal LIMIT ${PAGE_EXAMPLES}`,
        [runId, after, splits],
      );
      const page: PredictionRow[] = [];
      for (const row of rows) page.push(...this.predictionsOf(runId, row, filter.item));
      if (page.length) yield page;
      if (rows.length < PAGE_EXAMPLES) return;
      after = rows[rows.length - 1].ordinal;
    }
  }

  /** The predictions of a stored answer (only the named item's, when one is). */
  private predictionsOf(runId: string, row: AnswerRow, item?: string): PredictionRow[] {
    const items = storedItemsOf(row.items);
    const wanted = item === undefined ? items : items.filter((i) => i.item === item);
    if (!wanted.length) return [];
    const base = JSON.parse(row.record) as DecisionRecord;
    const logits = JSON.parse(row.logits) as number[][];
    return wanted.map((i) => predictionOf(runId, row, base, i, logits[items.indexOf(i)] ?? []));
  }

  async itemColumns(runId: string, itemIndex: number, splits?: readonly Split[]): Promise<ItemColumns> {
    // one snapshot: a commit that packs rows meanwhile is seen whole or not at all
    return inTransaction(
      this.pool,
      async (c) => {
        const run = await c.query<{ items: string }>("SELECT items FROM runs WHERE id = $1", [runId]);
        const spec = (JSON.parse(run.rows[0]?.items ?? "[]") as ItemSpec[])[itemIndex];
        const rowK = spec ? valueColumns(spec).length : 0;
        const chunks = await c.query<{ data: Buffer }>(
          "SELECT data FROM item_chunks WHERE run_id = $1 AND item_index = $2 ORDER BY chunk",
          [runId, itemIndex],
        );
        const loose = (await c.query<Raw>(LOOSE_VALUES, [runId, itemIndex])).rows.map(itemValuesFromRaw);
        const parts = [...chunks.rows.map((r) => decodeColumns(r.data)), columnsOf(rowK, loose)];
        return joinColumns(
          rowK,
          parts.filter((p) => p.n > 0),
          splits?.map((s) => SPLIT_NAMES.indexOf(s)),
        );
      },
      SNAPSHOT,
    );
  }

  async predictionsFor(
    runId: string,
    item: string,
    exampleIds: string[],
  ): Promise<Map<string, PredictionRow>> {
    const { rows } = await this.pool.query<AnswerRow>(
      `SELECT ${ANSWER_COLUMNS} FROM run_examples WHERE run_id = $1 AND example_id = ANY($2)`,
      [runId, exampleIds],
    );
    const out = new Map<string, PredictionRow>();
    for (const row of rows) {
      const p = this.predictionsOf(runId, row, item)[0];
      if (p) out.set(row.example_id, p);
    }
    return out;
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
    await this.pool.query("DELETE FROM servers WHERE id = $1", [id]);
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
    const { rows } = await this.pool.query<Raw>(
      `SELECT * FROM datasets WHERE name = $1 AND ${UPLOAD_COMPLETE}`,
      [name],
    );
    return rows[0] && uploadFromRaw(rows[0]);
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

  async allExamples(name: string): Promise<ExampleRow[]> {
    return (await this.uploadWithExamples(name))?.examples.slice() ?? [];
  }

  async uploadWithExamples(
    name: string,
  ): Promise<{ upload: UploadRow; examples: readonly ExampleRow[] } | undefined> {
    await this.marks;
    // one snapshot, so the upload and its examples agree
    return inTransaction(
      this.pool,
      async (c) => {
        const head = await c.query<Raw>(`SELECT * FROM datasets WHERE name = $1 AND ${UPLOAD_COMPLETE}`, [
          name,
        ]);
        if (!head.rows[0]) return undefined;
        const { rows } = await c.query<Raw>("SELECT * FROM examples WHERE dataset = $1 ORDER BY ordinal", [
          name,
        ]);
        return { upload: uploadFromRaw(head.rows[0]), examples: rows.map(exampleFromRaw) };
      },
      SNAPSHOT,
    );
  }

  async countRunsOfDataset(name: string): Promise<number> {
    return this.count("SELECT count(*) AS n FROM runs WHERE dataset = $1", name);
  }

  // ---- runs -------------------------------------------------------------------------------------------

  async insertRun(run: StoredRun): Promise<void> {
    const task = await this.getTask(run.dataset);
    const p = runToParams({ ...run, items: run.items ?? (task ? taskSpecs(task) : []) });
    await this.pool.query(
      `INSERT INTO runs (${RUN_INSERT_COLUMNS.join(", ")}) VALUES (${params(RUN_INSERT_COLUMNS.length)})`,
      RUN_INSERT_COLUMNS.map((c) => p[c]),
    );
  }

  async getStoredRun(id: string): Promise<StoredRun | undefined> {
    const { rows } = await this.pool.query<Raw>("SELECT * FROM runs WHERE id = $1", [id]);
    return rows[0] && runFromRaw(rows[0]);
  }

  async listStoredRuns(filter: { dataset?: string; status?: RunStatus } = {}): Promise<StoredRun[]> {
    const { rows } = await this.pool.query<Raw>(
      `SELECT * FROM runs WHERE ($1::text IS NULL OR dataset = $1) AND ($2::text IS NULL OR status = $2)
       ORDER BY created_at DESC, seq DESC`,
      [filter.dataset ?? null, filter.status ?? null],
    );
    return rows.map(runFromRaw);
  }

  async updateRun(id: string, patch: RunPatch): Promise<void> {
    const sets: string[] = [];
    const args: unknown[] = [id];
    for (const [key, value] of Object.entries(patch)) {
      const column = RUN_PATCH_COLUMNS[key as keyof RunPatch];
      if (!column || value === undefined) continue;
      args.push(key === "headline" ? toJson(value) : value);
      sets.push(`${column} = $${args.length}`);
    }
    if (sets.length) await this.pool.query(`UPDATE runs SET ${sets.join(", ")} WHERE id = $1`, args);
  }

  async addActiveMs(id: string, ms: number): Promise<void> {
    await this.pool.query("UPDATE runs SET active_ms = active_ms + $2 WHERE id = $1", [id, ms]);
  }

  /** Stores one answered example; rejects with AlreadyStored (pg-answers.ts) when it is stored already. */
  async recordExample(result: ExampleResult): Promise<void> {
    return this.writer.write(result);
  }

  async doneExampleIds(runId: string): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ example_id: string }>(
      "SELECT example_id FROM run_examples WHERE run_id = $1",
      [runId],
    );
    return new Set(rows.map((r) => r.example_id));
  }

  async latencies(runId: string): Promise<number[]> {
    const { rows } = await this.pool.query<{ ms: number }>(
      "SELECT ms FROM run_examples WHERE run_id = $1 ORDER BY ms",
      [runId],
    );
    return rows.map((r) => r.ms);
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
