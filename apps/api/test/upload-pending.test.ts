// An upload is stored in short transactions and is pending until the last one: no reader sees it, a second
// upload of its name is refused as in progress, and one that fails or is cancelled part-way leaves nothing.
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOwner } from "../src/storage/upload-owner.js";
import { UPLOAD_SQL } from "../src/storage/upload-sql.js";
import { body, post, type TestBench, testBench } from "./helpers.js";
import { bigJsonl, errorOf, jsonUpload, postUpload } from "./upload-http.js";
import { halfStored as halfStoredIn, storedRows } from "./upload-rows.js";

let bench: TestBench;
let base: string;
let db: Database.Database;

beforeAll(async () => {
  bench = await testBench();
  base = await bench.listen();
  db = new Database(bench.storage.path);
});

afterAll(async () => {
  db.close();
  await bench.close();
});

/** Reserves `name` under `owner` and stores `count` examples, without completing the upload. */
const halfStored = (name: string, count: number, owner: string) => halfStoredIn(db, name, count, owner);
/** The rows stored under `name`, pending or not. */
const stored = (name: string) => storedRows(db, name);

describe("a pending upload", () => {
  it("is not listed, shown, paged, run or deleted; a second upload of its name is in progress", async () => {
    const owner = newOwner(); // this process: alive
    await halfStored("half", 300, owner);
    expect(stored("half")).toEqual({ datasets: 1, examples: 300 });

    const list = body<{ name: string }[]>(await bench.app.inject({ method: "GET", url: "/api/datasets" }));
    expect(list.map((d) => d.name)).not.toContain("half");
    for (const url of ["/api/datasets/half", "/api/datasets/half/examples?limit=5"]) {
      expect((await bench.app.inject({ method: "GET", url })).statusCode, url).toBe(404);
    }
    expect(await bench.storage.getUpload("half")).toBeUndefined();
    expect(await bench.storage.listUploads()).toEqual([]);
    expect(await bench.storage.uploadWithExamples("half")).toBeUndefined();
    expect(await bench.storage.allExamples("half")).toEqual([]);
    expect((await bench.storage.getStates("half", ["t0000", "t0001"])).size).toBe(0);

    const server = await post(bench.app, "/api/servers", {
      name: "s",
      baseUrl: "http://127.0.0.1:9",
      models: ["m"],
    });
    const run = await post(bench.app, "/api/runs", {
      dataset: "half",
      serverId: body<{ id: string }>(server).id,
      model: "m",
    });
    expect(run.statusCode, run.body).toBe(404);
    expect(body<{ error: { message: string } }>(run).error.message).toContain("half");

    const del = await bench.app.inject({ method: "DELETE", url: "/api/datasets/half" });
    expect(del.statusCode).toBe(404);
    expect(stored("half")).toEqual({ datasets: 1, examples: 300 }); // still its owner's

    const again = await postUpload(base, jsonUpload("half", bigJsonl(10)));
    expect(again.status, again.body).toBe(409);
    expect(errorOf(again).code).toBe("dataset_exists");
    expect(errorOf(again).message).toContain("in progress");

    // its owner completes it: it appears whole
    expect(db.prepare(UPLOAD_SQL.complete).run("half", owner).changes).toBe(1);
    const shown = await bench.app.inject({ method: "GET", url: "/api/datasets/half" });
    expect(body<{ examples: number }>(shown).examples).toBe(300);
    expect((await bench.app.inject({ method: "DELETE", url: "/api/datasets/half" })).statusCode).toBe(204);
    expect(stored("half")).toEqual({ datasets: 0, examples: 0 });
  });
});

describe("an upload that fails part-way", () => {
  it("a row refused after many transactions were committed: 500, and nothing is left", async () => {
    // the database refuses example 150,000 (about 20 transactions in): a failure no check foresaw
    db.exec(`CREATE TRIGGER refuse_late BEFORE INSERT ON examples
      WHEN NEW.dataset = 'late' AND NEW.ordinal = 150000 BEGIN SELECT RAISE(ABORT, 'refused late'); END`);
    try {
      const answer = await postUpload(base, jsonUpload("late", bigJsonl(200_000)));
      expect(answer.status, answer.body.slice(0, 300)).toBe(500);
      expect(stored("late")).toEqual({ datasets: 0, examples: 0 });
    } finally {
      db.exec("DROP TRIGGER refuse_late");
    }
    const again = await postUpload(base, jsonUpload("late", bigJsonl(2_000)));
    expect(again.status, again.body.slice(0, 300)).toBe(201);
  });

  it("an app closed while an upload is being stored: its rows are deleted before the close ends", async () => {
    const other = await testBench();
    const url = await other.listen();
    const watch = new Database(other.storage.path, { readonly: true });
    try {
      const answer = postUpload(url, jsonUpload("cut-late", bigJsonl(400_000))).catch((e: Error) => e);
      const some = watch.prepare("SELECT EXISTS (SELECT 1 FROM examples WHERE dataset = 'cut-late')").pluck();
      while (!some.get()) await new Promise((r) => setTimeout(r, 10));
      const pending = watch.prepare("SELECT pending FROM datasets WHERE name = 'cut-late'").pluck().get();
      expect(JSON.parse(pending as string)).toMatchObject({ pid: process.pid });
      await other.app.close();
      expect(await answer).toBeInstanceOf(Error); // the connection was closed under it
      const count = (sql: string) => watch.prepare(sql).pluck().get() as number;
      expect(count("SELECT count(*) FROM datasets WHERE name = 'cut-late'")).toBe(0);
      expect(count("SELECT count(*) FROM examples WHERE dataset = 'cut-late'")).toBe(0);
    } finally {
      watch.close();
      await other.close();
    }
  });
});
