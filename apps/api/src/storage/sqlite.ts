/** The SQLite implementation of the storage interface: better-sqlite3, WAL; answers committed in groups (writer.ts). */

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { State, Task } from "@decision-workbench/datasets";
import type { DecisionRecord, State as WireState } from "@decision-workbench/scorer";
import Database from "better-sqlite3";
import { type ItemSpec, taskSpecs } from "../analysis/item-spec.js";
import { bundledStates, bundledTaskOf } from "../catalog/bundled.js";
import { columnsOf, decodeColumns, type ItemColumns, joinColumns } from "./item-columns.js";
import { SPLIT_NAMES, valueColumns } from "./item-values.js";
import { migrate } from "./migrations.js";
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
} from "./rows.js";
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
import { AnswerWriter, LOOSE_VALUES_SELECT, storedItemsOf } from "./writer.js";

/** Options of openStorage. */
export interface StorageOptions {
  /** `synchronous` pragma: NORMAL (default) survives a killed process; FULL also survives a power cut. */
  synchronous?: "NORMAL" | "FULL";
}

const SERVER_COLUMNS =
  "id, name, base_url, base_url_secret, endpoint, models, api_key_secret, extra_body, timeout, retries, backoff, deterministic, embedded, created_at, requests_per_minute, input_tokens_per_minute, input_price_per_million, output_price_per_million";
const RUN_INSERT_COLUMNS =
  "id, dataset, dataset_hash, server_id, server_name, endpoint, model, fingerprint, splits, concurrency, max_len, options, limit_n, status, error, created_at, started_at, finished_at, owner_pid, total, headline, max_cost, max_input_tokens, stop_reason, items";

function placeholders(columns: string): string {
  return columns
    .split(",")
    .map((c) => `@${c.trim()}`)
    .join(", ");
}

function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Answered examples read per page by the prediction reader (the connection is free for writes between pages). */
const PAGE_EXAMPLES = 512;

/** `split IN (...)` for some splits (none: every split), with its parameters. */
function splitSql<T extends string | number>(splits: readonly T[] | undefined): { where: string; args: T[] } {
  if (splits === undefined) return { where: "", args: [] };
  return { where: ` AND split IN (${splits.map(() => "?").join(",")})`, args: [...splits] };
}

/** The storage over one SQLite file. Every method is synchronous underneath and async at the interface. */
export class SqliteStorage implements WorkbenchStorage {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly stmts = new Map<string, Database.Statement>();
  private readonly writer: AnswerWriter;
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
    this.writer = new AnswerWriter(this.db);
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
    const splits = filter.split === undefined ? undefined : [filter.split].flat();
    const { where, args } = splitSql(splits);
    const stmt = this.stmt(
      `SELECT example_id, split, served_by, items, record, logits, ordinal FROM run_examples
       WHERE run_id = ? AND ordinal > ?${where} ORDER BY ordinal LIMIT ${PAGE_EXAMPLES}`,
    );
    // each page starts after the previous page's last example: examples written meanwhile are not seen twice
    for (let after = -1; ; ) {
      const rows = stmt.all(runId, after, ...args) as AnswerRow[];
      const page: PredictionRow[] = [];
      for (const row of rows) page.push(...this.predictionsOf(runId, row, filter.item));
      if (page.length) yield page;
      if (rows.length < PAGE_EXAMPLES) return;
      after = rows[rows.length - 1].ordinal;
    }
  }

  /** The predictions of a stored answer (only the named item's, when one is). */
  private predictionsOf(runId: string, row: AnswerRow, item?: string): PredictionRow[] {
    const out: PredictionRow[] = [];
    const items = storedItemsOf(row.items);
    let base: DecisionRecord | undefined; // one record per request, parsed once
    let logits: number[][] | undefined;
    for (let k = 0; k < items.length; k++) {
      if (item !== undefined && items[k].item !== item) continue;
      base ??= JSON.parse(row.record) as DecisionRecord;
      logits ??= JSON.parse(row.logits) as number[][];
      // inline logits: a row written into a migrated file by a process still on the version-3 code
      out.push(predictionOf(runId, row, base, items[k], items[k].inlineLogits ?? logits[k] ?? []));
    }
    return out;
  }

  async itemColumns(runId: string, itemIndex: number, splits?: readonly Split[]): Promise<ItemColumns> {
    // one read transaction: a commit that packs rows meanwhile is seen whole or not at all
    const read = this.db.transaction(() => {
      const specs = JSON.parse(
        (this.stmt("SELECT items FROM runs WHERE id = ?").pluck().get(runId) as string | undefined) ?? "[]",
      ) as ItemSpec[];
      const spec = specs[itemIndex];
      const rowK = spec ? valueColumns(spec).length : 0;
      const chunks = this.stmt(
        "SELECT data FROM item_chunks WHERE run_id = ? AND item_index = ? ORDER BY chunk",
      )
        .pluck()
        .all(runId, itemIndex) as Buffer[];
      const loose = (this.stmt(LOOSE_VALUES_SELECT).all(runId, itemIndex) as Raw[]).map(itemValuesFromRaw);
      const parts = [...chunks.map(decodeColumns), columnsOf(rowK, loose)].filter((p) => p.n > 0);
      return joinColumns(
        rowK,
        parts,
        splits?.map((s) => SPLIT_NAMES.indexOf(s)),
      );
    });
    return read();
  }

  async predictionsFor(
    runId: string,
    item: string,
    exampleIds: string[],
  ): Promise<Map<string, PredictionRow>> {
    const out = new Map<string, PredictionRow>();
    const stmt = this.stmt(
      "SELECT example_id, split, served_by, items, record, logits, ordinal FROM run_examples WHERE run_id = ? AND example_id = ?",
    );
    for (const id of exampleIds) {
      const row = stmt.get(runId, id) as AnswerRow | undefined;
      const p = row && this.predictionsOf(runId, row, item)[0];
      if (p) out.set(id, p);
    }
    return out;
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
    await writeUpload(this.db, row, [...examples]);
  }

  async deleteUpload(name: string): Promise<void> {
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
      return upload && { upload, examples: this.exampleRows(name).map(exampleFromRaw) };
    });
    return read();
  }

  async countRunsOfDataset(name: string): Promise<number> {
    return (this.stmt("SELECT count(*) AS n FROM runs WHERE dataset = ?").get(name) as { n: number }).n;
  }

  // ---- runs -------------------------------------------------------------------------------------------

  async insertRun(run: StoredRun): Promise<void> {
    const task = await this.getTask(run.dataset);
    const items = run.items ?? (task ? taskSpecs(task) : []);
    this.stmt(`INSERT INTO runs (${RUN_INSERT_COLUMNS}) VALUES (${placeholders(RUN_INSERT_COLUMNS)})`).run(
      runToParams({ ...run, items }),
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
    return this.writer.write(result);
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
    const rows = this.stmt(
      `SELECT DISTINCT coalesce(e.served_by, r.model) FROM run_examples e JOIN runs r ON r.id = e.run_id
       WHERE e.run_id = ? AND e.failed = 0`,
    )
      .pluck()
      .all(runId) as string[];
    return rows.sort();
  }

  async deleteRun(id: string): Promise<void> {
    this.db.transaction(() => {
      this.stmt("DELETE FROM item_values WHERE run_id = ?").run(id);
      this.stmt("DELETE FROM item_chunks WHERE run_id = ?").run(id);
      this.stmt("DELETE FROM run_examples WHERE run_id = ?").run(id);
      this.stmt("DELETE FROM calibrations WHERE run_id = ?").run(id);
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
    this.writer.close();
    if (this.db.open) this.db.close();
  }
}

/** Opens (creating and migrating when needed) the SQLite storage at `path`. */
export function openStorage(path: string, opts: StorageOptions = {}): SqliteStorage {
  return new SqliteStorage(path, opts);
}
