/**
 * Numbered schema migrations of the PostgreSQL store; the table `workbench_schema` holds one row per migration
 * applied. The schema is the SQLite store's (storage/migrations.ts, version 8) in PostgreSQL's types: JSON is kept
 * as text (a state's key order and every number's digits read back as written), labels and probabilities of the
 * analysis columns as bytea, ordered text columns in the "C" collation (byte order, as SQLite sorts).
 */

import type { Pool, PoolClient } from "pg";
import { newerSchema } from "../errors.js";

/** One schema change. Never edit a released migration: add the next number. */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration, oldest first. */
export const PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    name: "servers, uploaded datasets, runs, answered examples, item values and chunks, calibrations",
    sql: `
      CREATE TABLE servers (
        id text COLLATE "C" PRIMARY KEY,
        name text NOT NULL,
        base_url text NOT NULL,
        base_url_secret text NOT NULL,
        endpoint text NOT NULL,
        models text NOT NULL,
        api_key_secret text,
        extra_body text NOT NULL,
        timeout double precision NOT NULL,
        retries integer NOT NULL,
        backoff double precision NOT NULL,
        deterministic integer NOT NULL,
        embedded integer NOT NULL,
        created_at text COLLATE "C" NOT NULL,
        requests_per_minute double precision,
        input_tokens_per_minute double precision,
        input_price_per_million double precision,
        output_price_per_million double precision
      );
      -- pending: a pending upload's owner (JSON, storage/upload-owner.ts); null once the upload is complete
      CREATE TABLE datasets (
        name text COLLATE "C" PRIMARY KEY,
        task text NOT NULL,
        hash text NOT NULL,
        examples integer NOT NULL,
        splits text NOT NULL,
        created_at text NOT NULL,
        pending text
      );
      CREATE TABLE examples (
        dataset text COLLATE "C" NOT NULL REFERENCES datasets(name) ON DELETE CASCADE,
        ordinal integer NOT NULL,
        id text NOT NULL,
        split text NOT NULL,
        state text NOT NULL,
        labels text NOT NULL,
        meta text,
        PRIMARY KEY (dataset, ordinal),
        UNIQUE (dataset, id)
      );
      -- seq: insertion order, which breaks ties of created_at
      CREATE TABLE runs (
        id text COLLATE "C" PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        dataset text COLLATE "C" NOT NULL,
        dataset_hash text NOT NULL,
        server_id text COLLATE "C" NOT NULL,
        server_name text NOT NULL,
        endpoint text NOT NULL,
        model text NOT NULL,
        fingerprint text NOT NULL,
        splits text NOT NULL,
        concurrency integer NOT NULL,
        max_len integer,
        options text NOT NULL,
        limit_n integer,
        status text NOT NULL,
        error text,
        created_at text COLLATE "C" NOT NULL,
        started_at text,
        finished_at text,
        owner_pid integer,
        total integer NOT NULL,
        done integer NOT NULL DEFAULT 0,
        answered bigint NOT NULL DEFAULT 0,
        unknown bigint NOT NULL DEFAULT 0,
        escalated bigint NOT NULL DEFAULT 0,
        errors integer NOT NULL DEFAULT 0,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        reasoning_tokens bigint NOT NULL DEFAULT 0,
        cost double precision NOT NULL DEFAULT 0,
        active_ms double precision NOT NULL DEFAULT 0,
        headline text,
        max_cost double precision,
        max_input_tokens double precision,
        stop_reason text,
        items text NOT NULL DEFAULT '[]',
        packed integer NOT NULL DEFAULT 0
      );
      CREATE INDEX runs_by_created ON runs(created_at, seq);
      CREATE INDEX runs_by_dataset ON runs(dataset);
      CREATE INDEX runs_by_server ON runs(server_id);
      CREATE TABLE run_examples (
        run_id text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        example_id text NOT NULL,
        ordinal integer NOT NULL,
        split text NOT NULL,
        ms double precision NOT NULL,
        served_by text,
        failed integer NOT NULL,
        record text NOT NULL,
        items text NOT NULL,
        logits text NOT NULL,
        PRIMARY KEY (run_id, example_id),
        UNIQUE (run_id, ordinal)
      );
      -- gold / answer: an option index (or -1, a text that is no option); gold_list / answer_list: a list's option
      -- indices, one byte each; probs: little-endian doubles in the run's item spec order (storage/item-values.ts)
      -- one loose row per answered example: its items' values in data (storage/item-values.ts)
      CREATE TABLE item_values (
        run_id text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        ordinal integer NOT NULL,
        example_id text NOT NULL,
        split smallint NOT NULL,
        served_by text,
        data bytea NOT NULL,
        PRIMARY KEY (run_id, ordinal)
      );
      -- packed columns (storage/item-columns.ts): doubles compress poorly, so they are stored uncompressed
      CREATE TABLE item_chunks (
        run_id text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        item_index integer NOT NULL,
        chunk integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (run_id, item_index, chunk)
      );
      ALTER TABLE item_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE TABLE calibrations (
        id text COLLATE "C" PRIMARY KEY,
        run_id text COLLATE "C",
        created_at text COLLATE "C" NOT NULL,
        payload text NOT NULL
      );
      CREATE INDEX calibrations_by_run ON calibrations(run_id);
    `,
  },
  {
    version: 2,
    name: "person tokens: each a name and the SHA-256 of its token (never the token), revoked or not",
    sql: `
      CREATE TABLE tokens (
        id text COLLATE "C" PRIMARY KEY,
        name text COLLATE "C" NOT NULL UNIQUE,
        hash text COLLATE "C" NOT NULL UNIQUE,
        created_at text COLLATE "C" NOT NULL,
        revoked_at text
      );
    `,
  },
  {
    version: 3,
    name: "who started a run: the name of the person whose token did (null: none)",
    sql: "ALTER TABLE runs ADD COLUMN created_by text;",
  },
  {
    version: 4,
    name: "who uploaded a dataset: the name of the person whose token did (null: none)",
    sql: "ALTER TABLE datasets ADD COLUMN created_by text;",
  },
  {
    version: 5,
    name: "rate lanes shared by worker processes: one row per server, times in seconds on the database clock",
    sql: `
      -- engine/rate-shared.ts: request_tat / token_tat: the theoretical arrival times (GCRA) of the requests and
      -- input tokens a minute limits; paused_until: the end of the last 429's pause; taken_at: the last take.
      -- Seconds since the epoch on the database's clock (clock_timestamp()); 0: long ago.
      CREATE TABLE rate_lanes (
        server_id text COLLATE "C" PRIMARY KEY,
        request_tat double precision NOT NULL DEFAULT 0,
        token_tat double precision NOT NULL DEFAULT 0,
        paused_until double precision NOT NULL DEFAULT 0,
        taken_at double precision NOT NULL DEFAULT 0
      );
    `,
  },
  {
    version: 6,
    name: "a run's name and note, given by people to tell runs apart (null: none)",
    sql: `
      ALTER TABLE runs ADD COLUMN name text;
      ALTER TABLE runs ADD COLUMN note text;
    `,
  },
  {
    version: 7,
    name: "a finished run's latency percentiles and served models, stored at its first summary (null: not yet)",
    sql: "ALTER TABLE runs ADD COLUMN stats text;",
  },
];

/** The advisory lock (two keys, "work" "benc") held while migrating: one API instance migrates, the others wait. */
const MIGRATION_LOCK = [0x776f726b, 0x62656e63] as const;

/** The schema version of a database: the last migration applied (0: none). */
async function schemaVersion(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ v: number }>(
    "SELECT coalesce(max(version), 0)::integer AS v FROM workbench_schema",
  );
  return rows[0].v;
}

/**
 * Applies every migration newer than the database's schema version, each in its own transaction, under an
 * advisory lock so that instances starting together migrate once. Refuses a database newer than the code.
 * Returns the schema version.
 */
export async function migratePostgres(
  pool: Pool,
  migrations: PgMigration[] = PG_MIGRATIONS,
): Promise<number> {
  const latest = migrations.length ? migrations[migrations.length - 1].version : 0;
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1, $2)", [...MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS workbench_schema (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const current = await schemaVersion(client);
      if (current > latest) {
        throw newerSchema(current, latest, "another database (WORKBENCH_DATABASE_URL)");
      }
      for (const m of migrations) {
        if (m.version <= current) continue;
        await client.query("BEGIN");
        try {
          await client.query(m.sql);
          await client.query("INSERT INTO workbench_schema (version, name) VALUES ($1, $2)", [
            m.version,
            m.name,
          ]);
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK");
          throw err;
        }
      }
      return latest;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, $2)", [...MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
