import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AlreadyStored } from "../src/storage/errors.js";
import { MIGRATIONS, migrate } from "../src/storage/migrations.js";
import { openStorage, type SqliteStorage } from "../src/storage/sqlite.js";
import { storedRun, syntheticTask } from "./fixtures.js";
import { tempDir } from "./helpers.js";
import { result, storageContract } from "./storage-contract.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

let opened = 0;
storageContract("SQLite", async () => {
  const storage = openStorage(join(tmp.dir, `contract-${opened++}`, "workbench.sqlite"));
  return { storage, close: () => storage.close() };
});

const run = storedRun;

describe("SQLite storage: the file", () => {
  let storage: SqliteStorage;

  beforeAll(() => {
    storage = openStorage(join(tmp.dir, "file", "workbench.sqlite"));
  });

  afterAll(async () => {
    await storage.close();
  });

  it("creates the file in WAL mode at the latest schema version", () => {
    const db = new Database(storage.path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS[MIGRATIONS.length - 1].version);
    db.close();
    expect(statSync(storage.path).isFile()).toBe(true);
  });

  it("refuses a database newer than the code", () => {
    const db = new Database(":memory:");
    db.pragma("user_version = 999");
    expect(() => migrate(db)).toThrow(/schema version 999, newer than this code knows/);
    db.close();
  });

  it("applies only the migrations a file lacks", () => {
    const db = new Database(":memory:");
    const steps = [
      { version: 1, name: "a", sql: "CREATE TABLE a (x INTEGER);" },
      { version: 2, name: "b", sql: "CREATE TABLE b (x INTEGER);" },
    ];
    expect(migrate(db, steps.slice(0, 1))).toBe(1);
    expect(migrate(db, steps)).toBe(2);
    expect(migrate(db, steps)).toBe(2);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(["a", "b"]);
    db.close();
  });

  it("refuses a duplicate example as already stored, alone and in a group, writing no row of it", async () => {
    await storage.insertRun(run("run_b"));
    await storage.recordExample(result("run_b", "e1", 0, ["answered"]));
    await expect(storage.recordExample(result("run_b", "e1", 0, ["answered"]))).rejects.toThrow(
      AlreadyStored,
    );
    const group = await Promise.allSettled(
      ["e2", "e1", "e3"].map((id, i) => storage.recordExample(result("run_b", id, 1 + i, ["answered"]))),
    );
    expect((group[1] as PromiseRejectedResult).reason).toBeInstanceOf(AlreadyStored);
    // another example at an ordinal taken is the database's error, not a duplicate
    await expect(storage.recordExample(result("run_b", "e9", 0, ["answered"]))).rejects.toThrow(
      /UNIQUE constraint failed: run_examples/,
    );
    const raw = new Database(storage.path, { readonly: true });
    const count = (table: string) =>
      raw.prepare(`SELECT count(*) FROM ${table} WHERE run_id = 'run_b'`).pluck().get();
    expect([count("run_examples"), count("item_values")]).toEqual([3, 3]);
    raw.close();
  });

  it("commits a burst of answers in groups, each write resolving once its example is committed", async () => {
    await storage.insertRun(run("run_burst", { total: 600 }));
    const seen: number[] = [];
    const reader = new Database(storage.path, { readonly: true });
    const count = reader.prepare("SELECT count(*) FROM run_examples WHERE run_id = 'run_burst'").pluck();
    const values = reader.prepare("SELECT count(*) FROM item_values WHERE run_id = 'run_burst'").pluck();
    await Promise.all(
      Array.from({ length: 600 }, (_, e) =>
        storage.recordExample(result("run_burst", `e${e}`, e, ["answered", "unknown"])).then(() => {
          // another connection already sees the example (and every one before it in its group), item values too
          seen.push(count.get() as number);
          expect(seen[seen.length - 1]).toBeGreaterThanOrEqual(seen.length);
          expect(values.get()).toBe(seen[seen.length - 1] as number);
        }),
      ),
    );
    reader.close();
    expect(seen.length).toBe(600);
  });

  it("reads a large run's predictions in pages of whole examples", async () => {
    await storage.insertRun(run("run_pages", { total: 1500 }));
    await Promise.all(
      Array.from({ length: 1500 }, (_, e) =>
        storage.recordExample(result("run_pages", `e${e}`, e, ["answered", "unknown"])),
      ),
    );
    const sizes: number[] = [];
    for await (const page of storage.predictionPages("run_pages")) sizes.push(page.length);
    expect(sizes.length).toBeGreaterThan(1);
    const [size] = sizes;
    expect(size % 2).toBe(0);
    expect(sizes.slice(0, -1).every((s) => s === size)).toBe(true);
    expect(sizes.reduce((a, b) => a + b)).toBe(3000);
  });

  it("reads an upload replaced by another connection to the file", async () => {
    const upload = (hash: string, states: string[]) => {
      const examples = states.map((state) => ({ id: state, state, labels: {}, split: "test" as const }));
      const row = {
        name: "kept",
        task: { ...syntheticTask("kept"), items: [] },
        hash,
        examples: examples.length,
        splits: { train: 0, calibration: 0, test: examples.length },
        createdAt: new Date().toISOString(),
      };
      return [row, examples] as const;
    };
    const ids = async () => (await storage.uploadWithExamples("kept"))?.examples.map((e) => e.id);
    await storage.insertUpload(...upload("h1", ["one", "two"]));
    expect(await ids()).toEqual(["one", "two"]);
    // another process (the command line) replaces the upload: other lines, then the same lines in another
    // order, which have the same content hash
    const other = openStorage(storage.path);
    try {
      await other.deleteUpload("kept");
      await other.insertUpload(...upload("h2", ["three"]));
      expect(await ids()).toEqual(["three"]);
      await other.deleteUpload("kept");
      await other.insertUpload(...upload("h2", ["four", "five"]));
      expect(await ids()).toEqual(["four", "five"]);
      await other.deleteUpload("kept");
      await other.insertUpload(...upload("h2", ["five", "four"]));
      expect(await ids()).toEqual(["five", "four"]);
    } finally {
      await other.close();
    }
    await storage.deleteUpload("kept");
    expect(await storage.uploadWithExamples("kept")).toBeUndefined();
  });

  it("deletes a run's loose and packed item values with it", async () => {
    await storage.insertRun(run("run_del", { total: 5000 }));
    await Promise.all(
      Array.from({ length: 5000 }, (_, e) =>
        storage.recordExample(result("run_del", `e${e}`, e, ["answered"])),
      ),
    );
    const raw = new Database(storage.path, { readonly: true });
    const count = (table: string) =>
      raw.prepare(`SELECT count(*) FROM ${table} WHERE run_id = 'run_del'`).pluck().get();
    expect(count("item_chunks")).toBeGreaterThan(0);
    expect(count("item_values")).toBeGreaterThan(0);
    await storage.deleteRun("run_del");
    for (const table of ["run_examples", "item_values", "item_chunks", "calibrations"])
      expect(count(table)).toBe(0);
    raw.close();
  });

  it("commits what is queued when it closes, and refuses a later write, saying why", async () => {
    const path = join(tmp.dir, "closing", "workbench.sqlite");
    const closing = openStorage(path);
    await closing.insertRun(run("run_z"));
    const queued = closing.recordExample(result("run_z", "e0", 0, ["answered"]));
    await closing.close();
    await queued;
    await expect(closing.recordExample(result("run_z", "e1", 1, ["answered"]))).rejects.toThrow(
      "the storage is closed: nothing more can be written",
    );
    const reopened = openStorage(path);
    expect((await reopened.getStoredRun("run_z"))?.counters.done).toBe(1);
    expect((await reopened.listPredictions("run_z")).length).toBe(1);
    await reopened.close();
  });

  it("passes the integrity check", async () => {
    expect(await storage.integrityCheck()).toBe("ok");
  });
});
