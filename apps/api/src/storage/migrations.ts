/** Numbered schema migrations, applied in order; `PRAGMA user_version` holds the last one applied. */

import type Database from "better-sqlite3";
import { type ItemSpec, inferSpec, taskSpecs } from "../analysis/item-spec.js";
import { bundledTaskOf } from "../catalog/bundled.js";
import { storedItemsOf, valueRowOf } from "./answer-rows.js";
import { newerSchema } from "./errors.js";
import type { PredictionRow, Split } from "./types.js";
import { ITEM_VALUES_INSERT, packer } from "./writer.js";

/** One schema change. Never edit a released migration: add the next number. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Moves rows after `sql` (in the same transaction), where SQL alone would lose precision. */
  run?: (db: Database.Database) => void;
}

/** Every migration, oldest first. */
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "servers, uploaded datasets, runs, predictions, calibrations",
    sql: `
      CREATE TABLE servers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        base_url TEXT NOT NULL,
        base_url_secret TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        models TEXT NOT NULL,
        api_key_secret TEXT,
        extra_body TEXT NOT NULL,
        timeout REAL NOT NULL,
        retries INTEGER NOT NULL,
        backoff REAL NOT NULL,
        deterministic INTEGER NOT NULL,
        embedded INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE datasets (
        name TEXT PRIMARY KEY,
        task TEXT NOT NULL,
        hash TEXT NOT NULL,
        examples INTEGER NOT NULL,
        splits TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE examples (
        dataset TEXT NOT NULL REFERENCES datasets(name) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        id TEXT NOT NULL,
        split TEXT NOT NULL,
        state TEXT NOT NULL,
        labels TEXT NOT NULL,
        meta TEXT,
        PRIMARY KEY (dataset, ordinal)
      );
      CREATE UNIQUE INDEX examples_by_id ON examples(dataset, id);
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        dataset TEXT NOT NULL,
        dataset_hash TEXT NOT NULL,
        server_id TEXT NOT NULL,
        server_name TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        model TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        splits TEXT NOT NULL,
        concurrency INTEGER NOT NULL,
        max_len INTEGER,
        options TEXT NOT NULL,
        limit_n INTEGER,
        status TEXT NOT NULL,
        error TEXT,
        created_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT,
        owner_pid INTEGER,
        total INTEGER NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        answered INTEGER NOT NULL DEFAULT 0,
        unknown INTEGER NOT NULL DEFAULT 0,
        escalated INTEGER NOT NULL DEFAULT 0,
        errors INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        cost REAL NOT NULL DEFAULT 0,
        active_ms REAL NOT NULL DEFAULT 0,
        headline TEXT
      );
      CREATE INDEX runs_by_created ON runs(created_at);
      CREATE TABLE run_examples (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        example_id TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        split TEXT NOT NULL,
        ms REAL NOT NULL,
        served_by TEXT,
        failed INTEGER NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (run_id, example_id)
      ) WITHOUT ROWID;
      CREATE TABLE predictions (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        item_index INTEGER NOT NULL,
        example_id TEXT NOT NULL,
        item TEXT NOT NULL,
        split TEXT NOT NULL,
        gold TEXT,
        status TEXT NOT NULL,
        answer TEXT,
        confidence REAL,
        probabilities TEXT,
        logits TEXT NOT NULL,
        unknown REAL,
        reason TEXT,
        reasoning TEXT,
        PRIMARY KEY (run_id, ordinal, item_index)
      );
      CREATE TABLE calibrations (
        id TEXT PRIMARY KEY,
        run_id TEXT,
        created_at TEXT NOT NULL,
        payload TEXT NOT NULL
      );
      CREATE INDEX calibrations_by_run ON calibrations(run_id);
    `,
  },
  {
    version: 2,
    name: "analysis cache (converted item data and reports of finished runs, by run version); examples by ordinal",
    sql: `
      CREATE TABLE analysis_cache (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        version TEXT NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (run_id, key)
      );
      CREATE INDEX run_examples_by_ordinal ON run_examples(run_id, ordinal);
    `,
  },
  {
    version: 3,
    name: "one row per answered example, its items packed in it (one insert per answer, read in run order)",
    sql: `
      CREATE TABLE answers (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        example_id TEXT NOT NULL,
        split TEXT NOT NULL,
        ms REAL NOT NULL,
        served_by TEXT,
        failed INTEGER NOT NULL,
        record TEXT NOT NULL,
        items TEXT NOT NULL,
        PRIMARY KEY (run_id, ordinal)
      ) WITHOUT ROWID;
    `,
    run: packPredictions,
  },
  {
    version: 4,
    name: "each answer's logits in a column of their own, out of the items the analysis parses",
    sql: "ALTER TABLE run_examples ADD COLUMN logits TEXT NOT NULL DEFAULT '[]';",
    run: moveLogits,
  },
  {
    version: 5,
    name: "uploads stored in short transactions: a pending upload's owner (null once the upload is complete)",
    // JSON {pid, start, upload} (storage/upload-owner.ts). Every reader skips a row whose `pending` is set.
    sql: "ALTER TABLE datasets ADD COLUMN pending TEXT;",
  },
  {
    version: 6,
    name: "rate limits of a server: requests and estimated input tokens a minute (null: no limit)",
    sql: `
      ALTER TABLE servers ADD COLUMN requests_per_minute REAL;
      ALTER TABLE servers ADD COLUMN input_tokens_per_minute REAL;
    `,
  },
  {
    version: 7,
    name: "cost guard: a server's prices per million tokens, a run's caps and why it stopped (null: none)",
    sql: `
      ALTER TABLE servers ADD COLUMN input_price_per_million REAL;
      ALTER TABLE servers ADD COLUMN output_price_per_million REAL;
      ALTER TABLE runs ADD COLUMN max_cost REAL;
      ALTER TABLE runs ADD COLUMN max_input_tokens REAL;
      ALTER TABLE runs ADD COLUMN stop_reason TEXT;
    `,
  },
  {
    version: 8,
    name: "item values: each decision's analysis columns (loose rows, packed in chunks), read by every report; a run's item specs; no analysis cache",
    // item_values: one loose row per answered example, its items' values in `data` (item-values.ts
    // encodeExampleValues); item_chunks: CHUNK_ROWS examples of one item packed (item-columns.ts)
    sql: `
      ALTER TABLE runs ADD COLUMN items TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE runs ADD COLUMN packed INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE item_chunks (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        item_index INTEGER NOT NULL,
        chunk INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (run_id, item_index, chunk)
      ) WITHOUT ROWID;
      CREATE TABLE item_values (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        example_id TEXT NOT NULL,
        split INTEGER NOT NULL,
        served_by TEXT,
        data BLOB NOT NULL,
        PRIMARY KEY (run_id, ordinal)
      ) WITHOUT ROWID;
      DROP TABLE analysis_cache;
    `,
    run: fillItemValues,
  },
  {
    version: 9,
    name: "person tokens: each a name and the SHA-256 of its token (never the token), revoked or not",
    sql: `
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
    `,
  },
  {
    version: 10,
    name: "who started a run: the name of the person whose token did (null: none)",
    sql: "ALTER TABLE runs ADD COLUMN created_by TEXT;",
  },
  {
    version: 11,
    name: "who uploaded a dataset: the name of the person whose token did (null: none)",
    sql: "ALTER TABLE datasets ADD COLUMN created_by TEXT;",
  },
  {
    version: 12,
    name: "a run's name and note, given by people to tell runs apart (null: none)",
    sql: `
      ALTER TABLE runs ADD COLUMN name TEXT;
      ALTER TABLE runs ADD COLUMN note TEXT;
    `,
  },
  {
    version: 13,
    name: "a finished run's latency percentiles and served models, stored at its first summary (null: not yet)",
    sql: "ALTER TABLE runs ADD COLUMN stats TEXT;",
  },
];

/**
 * Migration 8: each run's item specs (its dataset's task when it is known, else read from its decisions) and the
 * analysis columns of every stored decision.
 */
function fillItemValues(db: Database.Database): void {
  const setSpecs = db.prepare("UPDATE runs SET items = ? WHERE id = ?");
  const insert = db.prepare(ITEM_VALUES_INSERT);
  const uploadTask = db.prepare("SELECT task FROM datasets WHERE name = ?").pluck();
  const runs = db.prepare("SELECT id, dataset FROM runs").all() as { id: string; dataset: string }[];
  const specs = new Map<string, ItemSpec[]>();
  for (const run of runs) {
    const text = uploadTask.get(run.dataset) as string | undefined;
    const task = bundledTaskOf(run.dataset) ?? (text ? JSON.parse(text) : undefined);
    // an item the task does not name (any more) gets a spec read from the run's decisions, as the writer does
    const named = task ? taskSpecs(task) : [];
    const read = inferredSpecs(db, run.id).filter((s) => !named.some((n) => n.name === s.name));
    specs.set(run.id, [...named, ...read]);
    setSpecs.run(JSON.stringify(specs.get(run.id)), run.id);
  }
  forEachExample(
    db,
    "example_id, split, served_by, items",
    ([runId, ordinal, exampleId, split, servedBy, items]) => {
      const example = {
        runId: runId as string,
        ordinal: ordinal as number,
        exampleId: exampleId as string,
        split: split as Split,
        servedBy: servedBy as string | null,
        predictions: storedItemsOf(items as string),
      };
      // every item has a spec (inferred above), so none is added
      insert.run(valueRowOf(example, specs.get(runId as string) ?? []).row);
    },
  );
  const pack = packer(db);
  for (const run of runs) pack(run.id);
}

/** The item specs of a run read from its decisions (for a dataset that is gone or does not name them). */
function inferredSpecs(db: Database.Database, runId: string): ItemSpec[] {
  const byItem = new Map<string, Pick<PredictionRow, "gold" | "answer" | "probabilities">[]>();
  const texts = db.prepare("SELECT items FROM run_examples WHERE run_id = ? ORDER BY ordinal").pluck();
  for (const text of texts.iterate(runId) as Iterable<string>) {
    for (const item of storedItemsOf(text)) {
      const rows = byItem.get(item.item) ?? [];
      rows.push(item);
      byItem.set(item.item, rows);
    }
  }
  return [...byItem].map(([name, rows]) => inferSpec(name, rows));
}

/**
 * Migration 3: each example's predictions become the JSON array of its items (in item order) on its answers row;
 * the predictions and run_examples tables go. The stored JSON texts are spliced in as they are and numbers are
 * written by JSON.stringify, so nothing is rounded (SQLite's JSON functions print 15 digits).
 */
function packPredictions(db: Database.Database): void {
  const insert = db.prepare(
    "INSERT INTO answers (run_id, ordinal, example_id, split, ms, served_by, failed, record, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const predictions = db
    .prepare(
      `SELECT item, gold, status, answer, confidence, probabilities, logits, unknown, reason, reasoning
       FROM predictions WHERE run_id = ? AND ordinal = ? ORDER BY item_index`,
    )
    .raw();
  // gold, answer, probabilities, logits and reasoning are stored JSON texts, spliced in; the rest are values
  const spliced = [false, true, false, true, false, true, true, false, false, true];
  const itemText = (p: unknown[]) =>
    `[${p.map((v, k) => (spliced[k] ? (v ?? "null") : JSON.stringify(v))).join(",")}]`;
  forEachExample(db, "example_id, split, ms, served_by, failed, record", (e) => {
    const items = (predictions.all(e[0], e[1]) as unknown[][]).map(itemText);
    insert.run(...e, `[${items.join(",")}]`);
  });
  db.exec(`
    DROP TABLE predictions;
    DROP TABLE run_examples;
    ALTER TABLE answers RENAME TO run_examples;
    CREATE UNIQUE INDEX run_examples_by_example ON run_examples(run_id, example_id);
  `);
}

/**
 * Migration 4: each answer's logits (element 6 of each item of its `items` array) move to its `logits` column, one
 * array per item in item order; element 6 becomes null. Numbers go through JSON.parse and JSON.stringify, which
 * give back every double exactly.
 */
function moveLogits(db: Database.Database): void {
  const update = db.prepare("UPDATE run_examples SET items = ?, logits = ? WHERE run_id = ? AND ordinal = ?");
  forEachExample(db, "items", ([runId, ordinal, text]) => {
    const items = JSON.parse(text as string) as unknown[][];
    const logits = items.map((i) => i[6] ?? []);
    for (const i of items) i[6] = null;
    update.run(JSON.stringify(items), JSON.stringify(logits), runId, ordinal);
  });
}

/**
 * Calls `each` with every run_examples row (run_id, ordinal, then `columns`), in (run_id, ordinal) order, read 1,000 rows at a
 * time: the connection runs no other statement while one is being iterated, and each page is read whole before
 * `each` sees it, so `each` may write (it must not change a row's run_id or ordinal).
 */
function forEachExample(db: Database.Database, columns: string, each: (row: unknown[]) => void): void {
  const PAGE = 1000;
  const page = db
    .prepare(
      `SELECT run_id, ordinal, ${columns} FROM run_examples WHERE (run_id, ordinal) > (?, ?)
       ORDER BY run_id, ordinal LIMIT ${PAGE}`,
    )
    .raw();
  let after: unknown[] = ["", -1];
  for (;;) {
    const rows = page.all(...after) as unknown[][];
    for (const row of rows) each(row);
    if (rows.length < PAGE) break;
    const last = rows[rows.length - 1];
    after = [last[0], last[1]];
  }
}

/** Applies every migration newer than the file's `user_version`, each in its own transaction. */
export function migrate(db: Database.Database, migrations: Migration[] = MIGRATIONS): number {
  const current = db.pragma("user_version", { simple: true }) as number;
  const latest = migrations.length ? migrations[migrations.length - 1].version : 0;
  if (current > latest) {
    throw newerSchema(current, latest, "another data folder (WORKBENCH_DATA_DIR)");
  }
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      m.run?.(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return latest;
}
