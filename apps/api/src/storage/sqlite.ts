/** The SQLite implementation of the storage interface: better-sqlite3, WAL; answers committed in groups (writer.ts). */

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { type Percentiles, percentiles } from "../engine/percentiles.js";
import { ANSWER_COLUMNS, type AnswerRow, PAGE_EXAMPLES } from "./answer-rows.js";
import { migrate } from "./migrations.js";
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
} from "./rows.js";
import { type ItemParts, StoreBase } from "./store-base.js";
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
import { AnswerWriter, LOOSE_VALUES_SELECT } from "./writer.js";

/** Options of openStorage. */
export interface StorageOptions {
  /** `synchronous` pragma: NORMAL (default) survives a killed process; FULL also survives a power cut. */
  synchronous?: "NORMAL" | "FULL";
}

/** `INSERT INTO table (columns) VALUES (@column, ...)`: named parameters of a row. */
function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`;
}

/** `split IN (...)` for some splits (none: every split), with its parameters. */
function splitSql<T extends string | number>(splits: readonly T[] | undefined): { where: string; args: T[] } {
  if (splits === undefined) return { where: "", args: [] };
  return { where: ` AND split IN (${splits.map(() => "?").join(",")})`, args: [...splits] };
}

/** The storage over one SQLite file. Every method is synchronous underneath and async at the interface. */
export class SqliteStorage extends StoreBase implements WorkbenchStorage {
  readonly path: string;
  readonly database: StoreLocation;
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
    super();
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.path = path;
    this.database = { kind: "sqlite", path };
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

  // ---- the reads store-base.ts makes the analysis members of -----------------------------------------

  protected async stateTexts(dataset: string, ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
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
        for (const r of rows) out.set(String(r.id), String(r.state));
      }
    })();
    return out;
  }

  protected async answerPage(runId: string, after: number, splits?: Split[]): Promise<AnswerRow[]> {
    const { where, args } = splitSql(splits);
    return this.stmt(
      `SELECT ${ANSWER_COLUMNS} FROM run_examples
       WHERE run_id = ? AND ordinal > ?${where} ORDER BY ordinal LIMIT ${PAGE_EXAMPLES}`,
    ).all(runId, after, ...args) as AnswerRow[];
  }

  protected async answersOf(runId: string, exampleIds: string[]): Promise<AnswerRow[]> {
    const stmt = this.stmt(`SELECT ${ANSWER_COLUMNS} FROM run_examples WHERE run_id = ? AND example_id = ?`);
    return exampleIds.flatMap((id) => (stmt.get(runId, id) as AnswerRow | undefined) ?? []);
  }

  protected async visitItemParts(
    runId: string,
    itemIndex: number,
    chunk: (bytes: Uint8Array, index: number) => void,
    after = -1,
  ): Promise<ItemParts> {
    const read = this.db.transaction((): ItemParts => {
      const chunks = this.stmt(
        "SELECT chunk, data FROM item_chunks WHERE run_id = ? AND item_index = ? AND chunk > ? ORDER BY chunk",
      );
      for (const row of chunks.iterate(runId, itemIndex, after)) {
        const r = row as { chunk: number; data: Buffer };
        chunk(r.data, r.chunk);
      }
      return {
        specs: this.stmt("SELECT items FROM runs WHERE id = ?").pluck().get(runId) as string | undefined,
        loose: this.stmt(LOOSE_VALUES_SELECT).all(runId) as Raw[],
      };
    });
    return read();
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
    this.stmt(insertSql("servers", SERVER_COLUMNS)).run(serverToParams(row));
  }

  async updateServer(row: ServerRow): Promise<void> {
    const sets = SERVER_COLUMNS.filter((c) => c !== "id" && c !== "created_at")
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
    await writeUpload(this.db, row, examples);
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

  async uploadWithExamples(
    name: string,
  ): Promise<{ upload: UploadRow; examples: readonly ExampleRow[] } | undefined> {
    // one read transaction, so the upload and its examples agree
    const read = this.db.transaction(() => {
      const upload = this.completeUpload(name);
      if (!upload) return undefined;
      const rows = this.stmt("SELECT * FROM examples WHERE dataset = ? ORDER BY ordinal").all(name) as Raw[];
      return { upload, examples: rows.map(exampleFromRaw) };
    });
    return read();
  }

  async uploadOutline(name: string, splits: readonly Split[]): Promise<UploadOutline | undefined> {
    const read = this.db.transaction(() => {
      const upload = this.completeUpload(name);
      if (!upload) return undefined;
      const code = new Map(splits.map((s, i) => [s, i]));
      const count = this.stmt(
        `SELECT count(*) FROM examples WHERE dataset = ? AND split IN (${splits.map(() => "?").join(", ") || "NULL"})`,
      )
        .pluck()
        .get(name, ...splits) as number;
      const ordinals = new Int32Array(count);
      const codes = new Uint8Array(count);
      let k = 0;
      const rows = this.stmt("SELECT ordinal, split FROM examples WHERE dataset = ? ORDER BY ordinal")
        .raw()
        .iterate(name) as IterableIterator<[number, Split]>;
      for (const [ordinal, split] of rows) {
        const c = code.get(split);
        if (c === undefined) continue;
        ordinals[k] = ordinal;
        codes[k++] = c;
      }
      return { upload, ordinals, splits: codes };
    });
    return read();
  }

  async uploadExamplesAt(name: string, ordinals: Int32Array): Promise<ExampleRow[]> {
    const rows = this.stmt(
      "SELECT * FROM examples WHERE dataset = ? AND ordinal IN (SELECT value FROM json_each(?)) ORDER BY ordinal",
    ).all(name, JSON.stringify(Array.from(ordinals))) as Raw[];
    return rows.map(exampleFromRaw);
  }

  async countRunsOfDataset(name: string): Promise<number> {
    return (this.stmt("SELECT count(*) AS n FROM runs WHERE dataset = ?").get(name) as { n: number }).n;
  }

  // ---- runs -------------------------------------------------------------------------------------------

  async insertRun(run: StoredRun): Promise<void> {
    this.stmt(insertSql("runs", RUN_INSERT_COLUMNS)).run(runToParams(await this.withItems(run)));
  }

  async getStoredRun(id: string): Promise<StoredRun | undefined> {
    const r = this.stmt("SELECT * FROM runs WHERE id = ?").get(id) as Raw | undefined;
    return r ? runFromRaw(r) : undefined;
  }

  async listStoredRuns(filter: RunFilter = {}): Promise<StoredRun[]> {
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
    if (filter.serverId !== undefined) {
      where.push("server_id = ?");
      args.push(filter.serverId);
    }
    const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const rows = this.db
      .prepare(`SELECT * FROM runs ${clause} ORDER BY created_at DESC, rowid DESC`)
      .all(...args) as Raw[];
    return rows.map(runFromRaw);
  }

  async updateRun(id: string, patch: RunPatch, onlyWhile?: RunMoment): Promise<boolean> {
    const values = runPatchValues(patch);
    if (!values.length) return false;
    const sets = values.map(([column]) => `${column} = @${column}`);
    const args: Raw = { id, ...Object.fromEntries(values) };
    let where = "id = @id";
    if (onlyWhile) {
      where += " AND status = @whileStatus AND finished_at IS @whileFinishedAt";
      Object.assign(args, { whileStatus: onlyWhile.status, whileFinishedAt: onlyWhile.finishedAt });
    }
    return this.db.prepare(`UPDATE runs SET ${sets.join(", ")} WHERE ${where}`).run(args).changes > 0;
  }

  async addActiveMs(id: string, ms: number): Promise<void> {
    this.stmt("UPDATE runs SET active_ms = active_ms + ? WHERE id = ?").run(ms, id);
  }

  /** Stores one answered example; rejects with AlreadyStored (errors.ts) when it is stored already. */
  async recordExample(result: ExampleResult): Promise<void> {
    return this.writer.write(result);
  }

  async storedOrdinals(runId: string, from: number, to: number): Promise<Int32Array> {
    const rows = this.stmt(
      "SELECT ordinal FROM run_examples WHERE run_id = ? AND ordinal >= ? AND ordinal < ? ORDER BY ordinal",
    )
      .pluck()
      .all(runId, from, to) as number[];
    return Int32Array.from(rows);
  }

  async latencies(runId: string): Promise<number[]> {
    return this.stmt("SELECT ms FROM run_examples WHERE run_id = ? ORDER BY ms")
      .pluck()
      .all(runId) as number[];
  }

  async latencyPercentiles(runId: string): Promise<Percentiles> {
    return percentiles(await this.latencies(runId));
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

  /** `PRAGMA integrity_check`: "ok" when the file's structure (pages, indexes, constraints) is sound. */
  // ---- person tokens --------------------------------------------------------------------------------

  async insertToken(row: TokenRow): Promise<void> {
    this.stmt("INSERT INTO tokens (id, name, hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)").run(
      row.id,
      row.name,
      row.hash,
      row.createdAt,
      row.revokedAt,
    );
  }

  async listTokens(): Promise<TokenInfo[]> {
    const rows = this.stmt(`SELECT ${TOKEN_INFO_COLUMNS} FROM tokens ORDER BY created_at, id`).all();
    return (rows as Raw[]).map(tokenFromRaw);
  }

  async revokeToken(name: string): Promise<boolean> {
    const sql = "UPDATE tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL";
    return this.stmt(sql).run(new Date().toISOString(), name).changes > 0;
  }

  async tokenByHash(hash: string): Promise<TokenInfo | undefined> {
    const sql = `SELECT ${TOKEN_INFO_COLUMNS} FROM tokens WHERE hash = ? AND revoked_at IS NULL`;
    const r = this.stmt(sql).get(hash) as Raw | undefined;
    return r ? tokenFromRaw(r) : undefined;
  }

  async hasActiveTokens(): Promise<boolean> {
    return this.stmt("SELECT 1 FROM tokens WHERE revoked_at IS NULL LIMIT 1").get() !== undefined;
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
