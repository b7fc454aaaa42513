/**
 * A running run's headline is computed again only once the run has grown by 5 %: on a million-example run each one
 * reads every stored prediction. A finished run's is computed and stored.
 */

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunEngine } from "../src/engine/engine.js";
import { SecretBox } from "../src/secrets/box.js";
import { openStorage, type SqliteStorage } from "../src/storage/sqlite.js";
import { storedRun } from "./fixtures.js";
import { tempDir } from "./helpers.js";
import { result } from "./storage-contract.js";

const tmp = tempDir("wb-live-headline-");
let storage: SqliteStorage;
let engine: RunEngine;

beforeAll(async () => {
  storage = openStorage(join(tmp.dir, "workbench.sqlite"));
  engine = new RunEngine({ storage, secrets: new SecretBox(randomBytes(32)) });
  await storage.insertRun(storedRun("run_live", { total: 5000 }));
});

afterAll(async () => {
  await storage.close();
  tmp.cleanup();
});

let next = 0;
async function store(n: number): Promise<void> {
  const writes: Promise<void>[] = [];
  for (let i = 0; i < n; i++, next++) {
    writes.push(storage.recordExample(result("run_live", `e${next}`, next, ["answered", "answered"])));
  }
  await Promise.all(writes);
}

/** The examples the headline counts (it pools the run's two items: two rows an example). */
const n = async () => ((await engine.summary("run_live")).headline?.n ?? 0) / 2;

describe("a running run's headline", () => {
  it("is kept until the run grows by 5 %, then computed again; a done run's is fresh", async () => {
    await store(1000);
    expect(await n()).toBe(1000);
    await store(52);
    expect(await n()).toBe(1000); // 52 more of 1,052: under 5 %, the last one still stands
    await store(1);
    expect(await n()).toBe(1053); // 53 of 1,053: 5 %
    await store(2);
    expect(await n()).toBe(1053);
    await store(955);
    await storage.updateRun("run_live", { status: "done" });
    expect(await n()).toBe(2010);
    expect((await storage.getStoredRun("run_live"))?.headline?.n).toBe(2 * 2010);
  });
});
