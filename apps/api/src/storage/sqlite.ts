/** The SQLite implementation of the storage interface: better-sqlite3, WAL; answers committed in groups (writer.ts). */

import { mkdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import type { State, Task } from "@decision-workbench/datasets";
import type { DecisionRecord, State as WireState } from "@decision-workbench/scorer";
import Database from "better-sqlite3";
import { bundledStates, bundledTaskOf } from "../catalog/bundled.js";
import { ENV } from "../config.js";
import { Checkpointer } from "./checkpointer.js";
import { migrate } from "./migrations.js";
import { keptBytes, RecentExamples, type StoredExample } from "./recent-examples.js";
import {
  ANSWER_COLUMNS,
  type AnswerTuple,
  addAnalysisRows,
  calibrationFromRaw,
  exampleFromRaw,
  itemsOf,
  predictionOf,
  type Raw,
  runFromRaw,
  runToParams,
  serverFromRaw,
  serverToParams,
  toJson,
  uploadFromRaw,
  wireStateOf,
} from "./rows.js";
import type {
  AnalysisRow,
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
} from "./types.js";
import { newOwner } from "./upload-owner.js";
import {
  claimUpload,
  discardAbandoned,
  discardUpload,
  discardUploadById,
  UPLOAD_COMPLETE,
  writeUpload,
} from "./upload-sql.js";
import { type ExampleWriter, exampleWire, InlineWriter, type ItemTuple } from "./writer.js";
import { ThreadWriter } from "./writer-thread.js";

/**
 * Whether answers are committed on a writer thread when the caller does not say: WORKBENCH_WRITER_THREAD (1 or 0)
 * when set, else whether the machine has more than 2 cores.
 */
export function writerThreadDefault(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[ENV.writerThread];
  if (value === undefined || value === "") return availableParallelism() > 2;
  if (value === "1" || value === "0") return value === "1";
  throw new Error(
    `${ENV.writerThread} must be 1 (commit answers on a writer thread) or 0 (on the event loop), not ${JSON.stringify(value)}`,
  );
}

/** Options of openStorage. */
export interface StorageOptions {
  /** `synchronous` pragma: NORMAL (default) survives a killed process; FULL also survives a power cut. */
  synchronous?: "NORMAL" | "FULL";
  /** Checkpoint the write-ahead log on a worker thread (default true for files): commits never wait for an fsync. */
  checkpointThread?: boolean;
  /**
   * Commit answered examples on a writer thread with its own connection (files only). Default:
   * writerThreadDefault(). On 2 cores, which the event loop and a local decision server keep busy, the thread
   * cannot run beside them and only adds its hand-off (apps/api/README.md, engine benchmark).
   */
  writerThread?: boolean;
}

/** Pages the log may reach before the committing connection checkpoints itself (when the thread is not there). */
const SAFETY_CHECKPOINT_PAGES = 50_000;

const SERVER_COLUMNS =
  "id, name, base_url, base_url_secret, endpoint, models, api_key_secret, extra_body, timeout, retries, backoff, deterministic, embedded, created_at, requests_per_minute, input_tokens_per_minute, input_price_per_million, output_price_per_million";
const RUN_INSERT_COLUMNS =
  "id, dataset, dataset_hash, server_id, server_name, endpoint, model, fingerprint, splits, concurrency, max_len, options, limit_n, status, error, created_at, started_at, finished_at, owner_pid, total, headline, max_cost, max_input_tokens, stop_reason";

function placeholders(columns: string): string {
  return columns
    .split(",")
    .map((c) => `@${c.trim()}`)
    .join(", ");
}

function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Answered examples read per page by the page readers (the connection is free for writes between pages). Small
 * enough that a page dies young: 4,096-prediction pages raised the peak memory of converting 100,000 rows by about
 * 40 MB.
 */
export const PAGE_EXAMPLES = 512;

/** Runs whose served models are kept in memory (see `SqliteStorage.served`). */
const SERVED_CACHE_RUNS = 16;

/** Who served a run, as of its stored example count `done` (see `SqliteStorage.served`). */
interface ServedEntry {
  done: number;
  /** The model the run asked for (the name of examples whose reply named none). */
  model: string;
  /** The distinct (served_by, failed) pairs of its examples. */
  pairs: [string | null, number][];
}

/** The split condition of a prediction filter after the run and page position, with its parameters. */
function splitSql(filter: PredictionFilter): { where: string; args: string[] } {
  if (filter.split === undefined) return { where: "", args: [] };
  const splits = Array.isArray(filter.split) ? filter.split : [filter.split];
  return { where: ` AND split IN (${splits.map(() => "?").join(",")})`, args: splits };
}

/**
 * The pages of a page statement (its last column is the ordinal), from the start of the run: each page starts
 * after the previous page's last example, so examples written meanwhile before that point are not seen twice.
 */
function* pagesOf(
  stmt: Database.Statement,
  runId: string,
  args: string[],
  after: number,
): Generator<AnswerTuple[]> {
  let ordinal = after;
  for (;;) {
    const rows = stmt.all(runId, ordinal, ...args) as AnswerTuple[];
    if (rows.length > 0) {
      const last = rows[rows.length - 1];
      ordinal = last[last.length - 1] as number;
      yield rows;
    }
    if (rows.length < PAGE_EXAMPLES) return;
  }
}

/** Whether `ordinals` ascend, all after `after`. */
function ascendingAfter(ordinals: number[], after: number): boolean {
  let last = after;
  for (const o of ordinals) {
    if (!(o > last)) return false;
    last = o;
  }
  return true;
}

/** The storage over one SQLite file. Every method is synchronous underneath and async at the interface. */
export class SqliteStorage implements WorkbenchStorage {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly stmts = new Map<string, Database.Statement>();
  private readonly writer: ExampleWriter;
  /** See `served`. */
  private readonly servedCache = new Map<string, ServedEntry>();
  private readonly recentExamples = new RecentExamples();
  private readonly checkpointer: Checkpointer | undefined;
  /**
   * Start-up: the pending uploads of processes that are gone (killed while storing or deleting one), deleted in
   * short transactions while the storage is in use; resolves to their names. Stopped by close (what is left
   * stays pending under this process, for the next start).
   */
  readonly abandoned: Promise<string[]>;
  private readonly closing = new AbortController();

  constructor(path: string, opts: StorageOptions = {}) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.path = path;
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma(`synchronous = ${opts.synchronous ?? "NORMAL"}`);
    this.db.pragma("foreign_keys = ON");
    this.db.pragma("busy_timeout = 5000");
    migrate(this.db);
    const file = path !== ":memory:";
    if (file && opts.checkpointThread !== false) {
      this.db.pragma(`wal_autocheckpoint = ${SAFETY_CHECKPOINT_PAGES}`);
      this.checkpointer = new Checkpointer(path);
    }
    this.writer =
      file && (opts.writerThread ?? writerThreadDefault())
        ? new ThreadWriter(path, {
            synchronous: opts.synchronous ?? "NORMAL",
            autocheckpoint: this.db.pragma("wal_autocheckpoint", { simple: true }) as number,
          })
        : new InlineWriter(this.db);
    this.abandoned = file
      ? new Promise((resolve) => setImmediate(resolve))
          .then(() => discardAbandoned(this.db, undefined, this.closing.signal))
          .catch(() => [])
      : Promise.resolve([]);
  }

  /** Whether a complete upload of that name is stored (in the caller's read transaction, if any). */
  private uploadComplete(name: string): boolean {
    return this.stmt(`SELECT 1 FROM datasets WHERE name = ? AND ${UPLOAD_COMPLETE}`).get(name) !== undefined;
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  // ---- the analysis members -------------------------------------------------------------------------

  async getRun(id: string): Promise<RunRow | undefined> {
    return this.getStoredRun(id);
  }

  async listRuns(filter: { dataset?: string; status?: RunStatus } = {}): Promise<RunRow[]> {
    return this.listStoredRuns(filter);
  }

  async getTask(dataset: string): Promise<Task | undefined> {
    const bundled = bundledTaskOf(dataset);
    if (bundled) return bundled;
    return (await this.getUpload(dataset))?.task;
  }

  async getStates(dataset: string, ids: string[]): Promise<Map<string, State>> {
    return this.readStates(dataset, ids, (text) => JSON.parse(text) as State);
  }

  async getWireStates(dataset: string, ids: string[]): Promise<Map<string, WireState>> {
    return this.readStates<WireState>(dataset, ids, wireStateOf);
  }

  /** States of some examples by id, each made from its stored JSON text by `of` (bundled: the loaded states). */
  private async readStates<T>(
    dataset: string,
    ids: string[],
    of: (text: string) => T,
  ): Promise<Map<string, T>> {
    if (bundledTaskOf(dataset)) return (await bundledStates(dataset, ids)) as Map<string, T>;
    const out = new Map<string, T>();
    const chunk = 500;
    // one read transaction, so a pending upload is skipped throughout
    this.db.transaction(() => {
      if (!this.uploadComplete(dataset)) return;
      for (let i = 0; i < ids.length; i += chunk) {
        const part = ids.slice(i, i + chunk);
        const rows = this.db
          .prepare(
            `SELECT id, state FROM examples WHERE dataset = ? AND id IN (${part.map(() => "?").join(",")})`,
          )
          .all(dataset, ...part) as Raw[];
        for (const r of rows) out.set(String(r.id), of(String(r.state)));
      }
    })();
    return out;
  }

  async listPredictions(runId: string, filter: PredictionFilter = {}): Promise<PredictionRow[]> {
    const out: PredictionRow[] = [];
    for await (const page of this.predictionPages(runId, filter)) for (const r of page) out.push(r);
    return out;
  }

  async *predictionPages(runId: string, filter: PredictionFilter = {}): AsyncGenerator<PredictionRow[]> {
    for (const rows of this.pages(`${ANSWER_COLUMNS}, record, logits`, runId, filter)) {
      const page: PredictionRow[] = [];
      for (const t of rows) {
        const items = itemsOf(t);
        let base: DecisionRecord | undefined; // one record per request, parsed once
        let logits: number[][] | undefined;
        for (let k = 0; k < items.length; k++) {
          const i = items[k];
          if (filter.item !== undefined && i[0] !== filter.item) continue;
          base ??= JSON.parse(t[4] as string) as DecisionRecord;
          logits ??= JSON.parse(t[5] as string) as number[][];
          // inline logits: a row written into a migrated file by a process still on the version-3 code
          page.push(predictionOf(runId, t, base, i, i[6] ?? logits[k] ?? []));
        }
      }
      if (page.length) yield page;
    }
  }

  /**
   * The analysis rows a page at a time. SQLite joins each page's columns into one JSON text per column, so 512
   * answers cross into JavaScript as five strings instead of 512 rows: reading and parsing 100,000 answers took
   * about 25 % less time than row by row. The joined ordinals are checked to be in ascending order (SQLite
   * aggregates the ordered page in its order, though it does not promise to); a page that is not is read again
   * row by row, and so is the rest of the run.
   */
  async *analysisPages(runId: string, filter: PredictionFilter = {}): AsyncGenerator<AnalysisRow[]> {
    const { where, args } = splitSql(filter);
    const joined = this.stmt(
      `SELECT json_group_array(example_id), json_group_array(split), json_group_array(served_by),
        '[' || group_concat(items, ',') || ']', json_group_array(ordinal)
       FROM (SELECT example_id, split, served_by, items, ordinal FROM run_examples
         WHERE run_id = ? AND ordinal > ?${where} ORDER BY ordinal LIMIT ${PAGE_EXAMPLES})`,
    ).raw();
    let after = -1;
    for (;;) {
      const [ids, splits, served, items, ordinals] = (joined.get(runId, after, ...args) as string[]).map(
        (text) => JSON.parse(text ?? "[]") as unknown[],
      ) as [string[], string[], (string | null)[], ItemTuple[][], number[]];
      if (!ascendingAfter(ordinals, after)) break;
      const page: AnalysisRow[] = [];
      for (let k = 0; k < ids.length; k++) {
        addAnalysisRows(page, [ids[k], splits[k], "", served[k]], items[k], filter.item);
      }
      if (page.length) yield page;
      if (ordinals.length < PAGE_EXAMPLES) return;
      after = ordinals[ordinals.length - 1];
    }
    for (const rows of this.pages(ANSWER_COLUMNS, runId, filter, after)) {
      const page: AnalysisRow[] = [];
      for (const t of rows) addAnalysisRows(page, t, itemsOf(t), filter.item);
      if (page.length) yield page;
    }
  }

  /**
   * Who served a run's examples: the distinct (served_by, failed) pairs. Scanning a run's examples costs about
   * 1 us each (100 ms for 100,000), so the answer is kept per run while its stored example count (`done`, updated
   * in each example's transaction) is unchanged; examples are never updated, only added or deleted with their run.
   */
  private served(runId: string): ServedEntry | undefined {
    // one read transaction, so the count and the examples read agree
    const read = this.db.transaction((): ServedEntry | undefined => {
      const row = this.stmt("SELECT done, model FROM runs WHERE id = ?").get(runId) as
        | { done: number; model: string }
        | undefined;
      if (!row) return undefined;
      const cached = this.servedCache.get(runId);
      if (cached && cached.done === row.done) return cached;
      const pairs = this.stmt("SELECT DISTINCT served_by, failed FROM run_examples WHERE run_id = ?")
        .raw()
        .all(runId) as [string | null, number][];
      const entry = { done: row.done, model: row.model, pairs };
      this.servedCache.delete(runId);
      this.servedCache.set(runId, entry);
      if (this.servedCache.size > SERVED_CACHE_RUNS) {
        this.servedCache.delete(this.servedCache.keys().next().value as string);
      }
      return entry;
    });
    return read();
  }

  /**
   * The pages of the answered examples matching a filter's splits, with the given columns, in run order (after the
   * ordinal `after`).
   */
  private pages(
    columns: string,
    runId: string,
    filter: PredictionFilter,
    after = -1,
  ): Generator<AnswerTuple[]> {
    const { where, args } = splitSql(filter);
    const stmt = this.stmt(
      `SELECT ${columns}, ordinal FROM run_examples WHERE run_id = ? AND ordinal > ?${where} ORDER BY ordinal LIMIT ${PAGE_EXAMPLES}`,
    ).raw();
    return pagesOf(stmt, runId, args, after);
  }

  async getAnalysisCache(runId: string, key: string, version: string): Promise<Buffer | undefined> {
    const row = this.stmt("SELECT data FROM analysis_cache WHERE run_id = ? AND key = ? AND version = ?")
      .pluck()
      .get(runId, key, version);
    return row === undefined ? undefined : (row as Buffer);
  }

  async putAnalysisCache(runId: string, key: string, version: string, data: Buffer): Promise<void> {
    this.stmt(
      `INSERT INTO analysis_cache (run_id, key, version, data) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?)
       ON CONFLICT(run_id, key) DO UPDATE SET version = excluded.version, data = excluded.data`,
    ).run(runId, key, version, data, runId);
  }

  async saveCalibration(row: CalibrationRow): Promise<void> {
    this.stmt(
      `INSERT INTO calibrations (id, run_id, created_at, payload) VALUES (@id, @run_id, @created_at, @payload)
       ON CONFLICT(id) DO UPDATE SET run_id = excluded.run_id, payload = excluded.payload`,
    ).run({ id: row.id, run_id: row.runId, created_at: row.createdAt, payload: JSON.stringify(row.payload) });
  }

  async getCalibration(id: string): Promise<CalibrationRow | undefined> {
    const r = this.stmt("SELECT * FROM calibrations WHERE id = ?").get(id) as Raw | undefined;
    return r ? calibrationFromRaw(r) : undefined;
  }

  async listCalibrations(filter: { runId?: string } = {}): Promise<CalibrationRow[]> {
    const rows =
      filter.runId !== undefined
        ? this.stmt("SELECT * FROM calibrations WHERE run_id = ? ORDER BY created_at DESC, id").all(
            filter.runId,
          )
        : this.stmt("SELECT * FROM calibrations ORDER BY created_at DESC, id").all();
    return (rows as Raw[]).map(calibrationFromRaw);
  }

  // ---- servers ----------------------------------------------------------------------------------------

  async listServers(): Promise<ServerRow[]> {
    return (this.stmt("SELECT * FROM servers ORDER BY created_at, id").all() as Raw[]).map(serverFromRaw);
  }

  async getServer(id: string): Promise<ServerRow | undefined> {
    const r = this.stmt("SELECT * FROM servers WHERE id = ?").get(id) as Raw | undefined;
    return r ? serverFromRaw(r) : undefined;
  }

  async insertServer(row: ServerRow): Promise<void> {
    this.stmt(`INSERT INTO servers (${SERVER_COLUMNS}) VALUES (${placeholders(SERVER_COLUMNS)})`).run(
      serverToParams(row),
    );
  }

  async updateServer(row: ServerRow): Promise<void> {
    const sets = SERVER_COLUMNS.split(",")
      .map((c) => c.trim())
      .filter((c) => c !== "id" && c !== "created_at")
      .map((c) => `${c} = @${c}`)
      .join(", ");
    this.stmt(`UPDATE servers SET ${sets} WHERE id = @id`).run(serverToParams(row));
  }

  async deleteServer(id: string): Promise<void> {
    this.stmt("DELETE FROM servers WHERE id = ?").run(id);
  }

  async countRunsOfServer(id: string): Promise<number> {
    return (this.stmt("SELECT count(*) AS n FROM runs WHERE server_id = ?").get(id) as { n: number }).n;
  }

  // ---- uploaded datasets (a pending upload, being stored or deleted, is not there: upload-sql.ts) --------

  async listUploads(): Promise<UploadRow[]> {
    return (this.stmt(`SELECT * FROM datasets WHERE ${UPLOAD_COMPLETE} ORDER BY name`).all() as Raw[]).map(
      uploadFromRaw,
    );
  }

  /** A complete upload's row (in the caller's read transaction, if any). */
  private completeUpload(name: string): UploadRow | undefined {
    const r = this.stmt(`SELECT * FROM datasets WHERE name = ? AND ${UPLOAD_COMPLETE}`).get(name) as
      | Raw
      | undefined;
    return r ? uploadFromRaw(r) : undefined;
  }

  async getUpload(name: string): Promise<UploadRow | undefined> {
    return this.completeUpload(name);
  }

  async insertUpload(row: UploadRow, examples: ExampleRow[]): Promise<void> {
    this.recentExamples.forget(row.name);
    await writeUpload(this.db, row, [...examples]);
  }

  async deleteUpload(name: string): Promise<void> {
    this.recentExamples.forget(name);
    const owner = newOwner();
    if (claimUpload(this.db, name, null, owner)) await discardUpload(this.db, name, owner);
  }

  async abandonUpload(upload: string): Promise<void> {
    await discardUploadById(this.db, upload);
  }

  async pageExamples(
    name: string,
    opts: { split?: Split; offset: number; limit: number; q?: string },
  ): Promise<ExamplePage> {
    const where = ["dataset = ?"];
    const args: unknown[] = [name];
    if (opts.split) {
      where.push("split = ?");
      args.push(opts.split);
    }
    if (opts.q) {
      where.push("(lower(state) LIKE ? ESCAPE '\\' OR lower(id) LIKE ? ESCAPE '\\')");
      args.push(likePattern(opts.q), likePattern(opts.q));
    }
    const clause = where.join(" AND ");
    // one read transaction, so the count and the page agree and a pending upload is skipped
    return this.db.transaction((): ExamplePage => {
      if (!this.uploadComplete(name)) return { total: 0, examples: [] };
      const total = (
        this.db.prepare(`SELECT count(*) AS n FROM examples WHERE ${clause}`).get(...args) as { n: number }
      ).n;
      const rows = this.db
        .prepare(`SELECT * FROM examples WHERE ${clause} ORDER BY ordinal LIMIT ? OFFSET ?`)
        .all(...args, opts.limit, opts.offset) as Raw[];
      return { total, examples: rows.map(exampleFromRaw) };
    })();
  }

  async allExamples(name: string): Promise<ExampleRow[]> {
    return this.db
      .transaction(() => (this.uploadComplete(name) ? this.exampleRows(name) : []))()
      .map(exampleFromRaw);
  }

  /** The stored rows of an upload's examples, in file order. */
  private exampleRows(name: string): Raw[] {
    return this.stmt("SELECT * FROM examples WHERE dataset = ? ORDER BY ordinal").all(name) as Raw[];
  }

  async uploadWithExamples(
    name: string,
  ): Promise<{ upload: UploadRow; examples: readonly ExampleRow[] } | undefined> {
    // one read transaction, so the upload and its examples agree
    const read = this.db.transaction(() => {
      const upload = this.completeUpload(name);
      if (!upload) return undefined;
      // the hash alone ignores the examples' order; an upload replaced by the same lines has another time
      const version = `${upload.hash}|${upload.createdAt}`;
      const kept = this.recentExamples.get(name, version);
      if (kept) return { upload, examples: kept };
      const raws = this.exampleRows(name);
      let bytes = 0;
      for (const raw of raws) bytes += keptBytes(raw as unknown as StoredExample);
      const examples = this.recentExamples.set(name, version, raws.map(exampleFromRaw), bytes);
      return { upload, examples };
    });
    return read();
  }

  async countRunsOfDataset(name: string): Promise<number> {
    return (this.stmt("SELECT count(*) AS n FROM runs WHERE dataset = ?").get(name) as { n: number }).n;
  }

  // ---- runs -------------------------------------------------------------------------------------------

  async insertRun(run: StoredRun): Promise<void> {
    this.stmt(`INSERT INTO runs (${RUN_INSERT_COLUMNS}) VALUES (${placeholders(RUN_INSERT_COLUMNS)})`).run(
      runToParams(run),
    );
  }

  async getStoredRun(id: string): Promise<StoredRun | undefined> {
    const r = this.stmt("SELECT * FROM runs WHERE id = ?").get(id) as Raw | undefined;
    return r ? runFromRaw(r) : undefined;
  }

  async listStoredRuns(filter: { dataset?: string; status?: RunStatus } = {}): Promise<StoredRun[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.dataset !== undefined) {
      where.push("dataset = ?");
      args.push(filter.dataset);
    }
    if (filter.status !== undefined) {
      where.push("status = ?");
      args.push(filter.status);
    }
    const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const rows = this.db
      .prepare(`SELECT * FROM runs ${clause} ORDER BY created_at DESC, rowid DESC`)
      .all(...args) as Raw[];
    return rows.map(runFromRaw);
  }

  async updateRun(id: string, patch: RunPatch): Promise<void> {
    const columns: Record<string, string> = {
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
    const sets: string[] = [];
    const args: Raw = { id };
    for (const [key, value] of Object.entries(patch)) {
      const column = columns[key];
      if (!column || value === undefined) continue;
      sets.push(`${column} = @${column}`);
      args[column] = key === "headline" ? toJson(value) : value;
    }
    if (!sets.length) return;
    this.db.prepare(`UPDATE runs SET ${sets.join(", ")} WHERE id = @id`).run(args);
  }

  async addActiveMs(id: string, ms: number): Promise<void> {
    this.stmt("UPDATE runs SET active_ms = active_ms + ? WHERE id = ?").run(ms, id);
  }

  async recordExample(result: ExampleResult): Promise<void> {
    return this.writer.write(exampleWire(result));
  }

  async doneExampleIds(runId: string): Promise<Set<string>> {
    const rows = this.stmt("SELECT example_id FROM run_examples WHERE run_id = ?").pluck().all(runId);
    return new Set(rows as string[]);
  }

  async latencies(runId: string): Promise<number[]> {
    return this.stmt("SELECT ms FROM run_examples WHERE run_id = ? ORDER BY ms")
      .pluck()
      .all(runId) as number[];
  }

  async servedModels(runId: string): Promise<string[]> {
    const served = this.served(runId);
    if (!served) return [];
    const models = new Set(served.pairs.filter((p) => p[1] === 0).map((p) => p[0] ?? served.model));
    return [...models].sort();
  }

  async deleteRun(id: string): Promise<void> {
    this.servedCache.delete(id);
    this.db.transaction(() => {
      this.stmt("DELETE FROM run_examples WHERE run_id = ?").run(id);
      this.stmt("DELETE FROM calibrations WHERE run_id = ?").run(id);
      this.stmt("DELETE FROM analysis_cache WHERE run_id = ?").run(id);
      this.stmt("DELETE FROM runs WHERE id = ?").run(id);
    })();
  }

  async integrityCheck(): Promise<string> {
    const rows = this.db.pragma("integrity_check") as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join("\n");
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.abandoned;
    await this.writer.close();
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}

/** Opens (creating and migrating when needed) the SQLite storage at `path`. */
export function openStorage(path: string, opts: StorageOptions = {}): SqliteStorage {
  return new SqliteStorage(path, opts);
}
