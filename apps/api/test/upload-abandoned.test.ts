// A pending upload whose process is gone (killed while storing it) is deleted: at start-up, and when another
// upload asks for its name. Its rows were never visible.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { DB_FILE } from "../src/config.js";
import { openStorage } from "../src/storage/sqlite.js";
import { newOwner, ownerGone, PROCESS_START } from "../src/storage/upload-owner.js";
import { listeningUrl, workbench } from "./child.js";
import { tempDir, testBench } from "./helpers.js";
import { bigJsonl, jsonUpload, postUpload } from "./upload-http.js";
import { halfStored as halfStoredIn, storedRows, uploadRows } from "./upload-rows.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid as number;
}

/** The owner text of a process `pid` that started at `start`. */
const ownerText = (pid: number, start: number) => JSON.stringify({ pid, start, upload: "u-test" });

/** A migrated, empty workbench file in a folder of its own. */
async function emptyFile(name: string): Promise<string> {
  mkdirSync(join(tmp.dir, name));
  const path = join(tmp.dir, name, DB_FILE);
  await openStorage(path).close();
  return path;
}

/** Reserves `name` under `owner` in the file at `path` and stores `count` examples, without completing it. */
async function halfStored(path: string, name: string, count: number, owner: string): Promise<void> {
  const db = new Database(path);
  try {
    await halfStoredIn(db, name, count, owner);
  } finally {
    db.close();
  }
}

function stored(path: string, name: string): { datasets: number; examples: number } {
  const db = new Database(path, { readonly: true });
  try {
    return storedRows(db, name);
  } finally {
    db.close();
  }
}

describe("whose owner is gone", () => {
  it("tells a gone owner from a live one: pid, restarted pid, pid used again by a later process", () => {
    expect(ownerGone(newOwner())).toBe(false);
    expect(ownerGone(ownerText(process.pid, PROCESS_START - 60_000))).toBe(true); // this pid, an earlier process
    expect(ownerGone(ownerText(deadPid(), Date.now()))).toBe(true);
    expect(ownerGone(ownerText(process.ppid, Date.now()))).toBe(false); // alive, started before
    // the parent started long after the epoch: on Linux, its start time shows it is not that owner
    expect(ownerGone(ownerText(process.ppid, 0))).toBe(process.platform === "linux");
    expect(ownerGone("not an owner")).toBe(true);
  });

  it("is deleted at start-up, in short transactions; complete uploads and live owners' stay", async () => {
    const path = await emptyFile("startup");
    await halfStored(path, "dead", 30_000, ownerText(deadPid(), Date.now() - 5_000));
    await halfStored(path, "alive", 50, newOwner());
    const storage = openStorage(path);
    try {
      await storage.insertUpload(...uploadRows("whole", 10));
      expect(await storage.abandoned).toEqual(["dead"]);
      expect((await storage.listUploads()).map((u) => u.name)).toEqual(["whole"]);
    } finally {
      await storage.close();
    }
    expect(stored(path, "dead")).toEqual({ datasets: 0, examples: 0 });
    expect(stored(path, "alive")).toEqual({ datasets: 1, examples: 50 });
    expect(stored(path, "whole")).toEqual({ datasets: 1, examples: 10 });
  });

  it("is deleted when an upload asks for its name (the app already running)", async () => {
    const bench = await testBench({ dir: join(tmp.dir, "lazy") });
    try {
      const base = await bench.listen();
      await bench.storage.abandoned;
      await halfStored(bench.storage.path, "lazy", 20_000, ownerText(deadPid(), Date.now() - 5_000));
      const answer = await postUpload(base, jsonUpload("lazy", bigJsonl(100)));
      expect(answer.status, answer.body.slice(0, 300)).toBe(201);
      expect(stored(bench.storage.path, "lazy")).toEqual({ datasets: 1, examples: 100 });
    } finally {
      await bench.close();
    }
  });

  it("a workbench killed (SIGKILL) while storing an upload: its rows are deleted at the next start", async () => {
    const dataDir = join(tmp.dir, "killed");
    const env = { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_SECRET_KEY: randomBytes(32).toString("hex") };
    const child = workbench(["serve", "--port", "0", "--no-reference"], env);
    const url = listeningUrl(await child.firstLine);
    const path = join(dataDir, DB_FILE);
    const answer = postUpload(url, jsonUpload("killed", bigJsonl(300_000))).catch((e: Error) => e);
    const watch = new Database(path, { readonly: true });
    try {
      const some = watch.prepare("SELECT EXISTS (SELECT 1 FROM examples WHERE dataset = 'killed')").pluck();
      while (!some.get()) await new Promise((r) => setTimeout(r, 10));
      child.proc.kill("SIGKILL");
      expect(await child.exited).toBe("SIGKILL");
      expect(await answer).toBeInstanceOf(Error);
      const pending = watch.prepare("SELECT pending FROM datasets WHERE name = 'killed'").pluck().get();
      expect(JSON.parse(pending as string)).toMatchObject({ pid: child.proc.pid });
    } finally {
      watch.close();
    }
    const left = stored(path, "killed");
    expect(left.examples).toBeGreaterThan(0);
    expect(left.examples).toBeLessThan(300_000);
    const storage = openStorage(path);
    try {
      expect(await storage.listUploads()).toEqual([]);
      expect(await storage.abandoned).toEqual(["killed"]);
    } finally {
      await storage.close();
    }
    expect(stored(path, "killed")).toEqual({ datasets: 0, examples: 0 });
  });
});
