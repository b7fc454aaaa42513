import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { AlreadyStored } from "../src/storage/errors.js";
import { CHUNK_ROWS } from "../src/storage/item-columns.js";
import { migratePostgres, PG_MIGRATIONS } from "../src/storage/postgres/pg-migrations.js";
import { openPostgresStorage, type PostgresStorage } from "../src/storage/postgres/postgres.js";
import { storedRun } from "./fixtures.js";
import { type TestDatabase, testDatabase } from "./postgres.js";
import { result, server, storageContract } from "./storage-contract.js";

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

/** A fresh database of the test server. */
async function fresh(): Promise<string> {
  const db = await testDatabase();
  databases.push(db);
  return db.url;
}

storageContract("PostgreSQL", async () => {
  const storage = await openPostgresStorage(await fresh());
  return { storage, close: () => storage.close() };
});

/** Runs `fn` with storages on one fresh database, closed afterwards. */
async function withStorages<T>(n: number, fn: (s: PostgresStorage[], url: string) => Promise<T>): Promise<T> {
  const url = await fresh();
  const storages = await Promise.all(Array.from({ length: n }, () => openPostgresStorage(url)));
  try {
    return await fn(storages, url);
  } finally {
    for (const s of storages) await s.close();
  }
}

describe("PostgreSQL storage: the database", () => {
  it("stores an answer delivered twice, to two storages at once, exactly once", async () => {
    await withStorages(2, async ([a, b]) => {
      await a.insertRun(storedRun("run_twice", { total: 400 }));
      // every example is delivered to both storages at the same time (a chunk picked up again by another worker)
      const writes = Array.from({ length: 200 }, (_, e) => [
        a.recordExample(result("run_twice", `e${e}`, e, ["answered", "unknown"])),
        b.recordExample(result("run_twice", `e${e}`, e, ["answered", "unknown"])),
      ]);
      const outcomes = await Promise.all(writes.map((pair) => Promise.allSettled(pair)));
      for (const pair of outcomes) {
        // one copy stored, the other refused as already stored
        expect(pair.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
        const refused = pair.find((o) => o.status === "rejected") as PromiseRejectedResult;
        expect(refused.reason).toBeInstanceOf(AlreadyStored);
      }
      for (const s of [a, b]) {
        const run = await s.getStoredRun("run_twice");
        expect(run?.counters).toMatchObject({ done: 200, answered: 200, unknown: 200, inputTokens: 2000 });
        expect((await s.listPredictions("run_twice")).length).toBe(400);
        const index = (await s.getRun("run_twice"))?.items?.findIndex((i) => i.name === "single") ?? -1;
        const single = await s.itemColumns("run_twice", index);
        expect(Array.from(single.ordinal)).toEqual(Array.from({ length: 200 }, (_, e) => e));
      }
      expect(await a.integrityCheck()).toBe("ok");
    });
  });

  it("packs a run's decisions into chunks as they reach CHUNK_ROWS, written by two storages", async () => {
    await withStorages(2, async ([a, b], url) => {
      const n = CHUNK_ROWS + 100;
      await a.insertRun(storedRun("run_pack", { total: n }));
      await Promise.all(
        Array.from({ length: n }, (_, e) =>
          (e % 2 ? a : b).recordExample(result("run_pack", `e${e}`, e, ["answered", "escalated"])),
        ),
      );
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const counts = await client.query(
        `SELECT (SELECT count(*)::int FROM item_chunks WHERE run_id = 'run_pack') AS chunks,
                (SELECT count(*)::int FROM item_values WHERE run_id = 'run_pack') AS loose,
                (SELECT packed FROM runs WHERE id = 'run_pack') AS packed`,
      );
      await client.end();
      const { chunks, loose, packed } = counts.rows[0];
      // every item packed once CHUNK_ROWS examples were loose; the rest stay loose
      expect(chunks).toBe(2 * Math.ceil(packed / CHUNK_ROWS));
      expect(packed).toBeGreaterThanOrEqual(CHUNK_ROWS);
      expect(loose).toBe(n - packed);
      const items = (await b.getRun("run_pack"))?.items ?? [];
      for (const name of ["single", "multi"]) {
        const index = items.findIndex((i) => i.name === name);
        const columns = await b.itemColumns("run_pack", index);
        expect(Array.from(columns.ordinal)).toEqual(Array.from({ length: n }, (_, e) => e));
      }
      expect((await a.getStoredRun("run_pack"))?.counters).toMatchObject({
        done: n,
        answered: n,
        escalated: n,
      });
      expect(await b.integrityCheck()).toBe("ok");
    });
  });

  it("deletes a server's shared rate lane with it, and no other server's", async () => {
    await withStorages(1, async ([s], url) => {
      await s.insertServer(server("srv_gone"));
      await s.insertServer(server("srv_kept"));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query("INSERT INTO rate_lanes (server_id) VALUES ('srv_gone'), ('srv_kept')");
      await s.deleteServer("srv_gone");
      const { rows } = await client.query("SELECT server_id FROM rate_lanes ORDER BY server_id");
      await client.end();
      expect(rows.map((r) => r.server_id)).toEqual(["srv_kept"]);
      expect(await s.getServer("srv_gone")).toBeUndefined();
      expect((await s.getServer("srv_kept"))?.name).toBe("server srv_kept");
    });
  });

  it("checks that every run's counters agree with its stored examples", async () => {
    await withStorages(1, async ([s], url) => {
      await s.insertRun(storedRun("run_sound"));
      await s.insertRun(storedRun("run_off"));
      for (const id of ["run_sound", "run_off"]) await s.recordExample(result(id, "e0", 0, ["answered"]));
      expect(await s.integrityCheck()).toBe("ok");
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query("UPDATE runs SET done = done + 1 WHERE id = 'run_off'");
      await client.end();
      expect(await s.integrityCheck()).toBe("run run_off: done 2, packed 0, 1 examples stored");
    });
  });

  it("migrates a fresh database once when two storages open it together", async () => {
    const url = await fresh();
    const storages = await Promise.all([openPostgresStorage(url), openPostgresStorage(url)]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT version FROM workbench_schema ORDER BY version");
    await client.end();
    expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    await storages[0].insertServer({
      id: "srv",
      name: "s",
      baseUrl: "http://x",
      baseUrlSecret: "u",
      endpoint: "http://x/v1/decision",
      models: [],
      apiKeySecret: null,
      extraBody: {},
      timeout: 1,
      retries: 0,
      backoff: 0,
      deterministic: true,
      requestsPerMinute: null,
      inputTokensPerMinute: null,
      inputPricePerMillion: null,
      outputPricePerMillion: null,
      embedded: false,
      createdAt: "t",
    });
    expect((await storages[1].listServers()).map((s) => s.id)).toEqual(["srv"]);
    for (const s of storages) await s.close();
  });

  it("refuses a database newer than the code, and shows its URL without the password", async () => {
    const url = await fresh();
    const pool = new pg.Pool({ connectionString: url });
    const newer = { version: 99, name: "from the future", sql: "CREATE TABLE future (x integer)" };
    await migratePostgres(pool, [...PG_MIGRATIONS, newer]);
    await pool.end();
    await expect(openPostgresStorage(url)).rejects.toThrow(
      new RegExp(`schema version 99, newer than this code knows \\(${PG_MIGRATIONS.at(-1)?.version}\\)`),
    );
    const other = new URL(await fresh());
    if (!other.password) other.password = "hunter2"; // the test cluster trusts its connections
    const storage = await openPostgresStorage(other.toString());
    expect(storage.path).not.toContain(other.password);
    expect(storage.path).toContain(`${other.username}@${other.host}`);
    await storage.close();
  });
});
