/**
 * What a started workbench does in the background: the analysis code compiled on synthetic runs, then the
 * reports of every recent finished run prepared and stored when they were not (stored data of an older format, a
 * crash while the engine was storing them).
 */

import { join } from "node:path";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analysisData } from "../src/analysis/data.js";
import { compileAnalysis, PREPARED_RUNS, prepareRecentRuns } from "../src/analysis/warm-up.js";
import { startWorkbench } from "../src/cli/serve.js";
import { serveConfig } from "../src/config.js";
import { openStorage } from "../src/storage/sqlite.js";
import { addServer, reference, runToEnd, tempDir, testBench } from "./helpers.js";

let server: DecisionServerHandle;
const tmp = tempDir("wb-warm-up-");
const runs: string[] = [];

/** The analysis_cache keys stored for a run, sorted. */
function storedKeys(runId: string): string[] {
  const db = new Database(join(tmp.dir, "workbench.sqlite"), { readonly: true });
  try {
    const keys = db.prepare("SELECT key FROM analysis_cache WHERE run_id = ?").pluck().all(runId) as string[];
    return keys.sort();
  } finally {
    db.close();
  }
}

/** Forgets what was stored beside the runs, as a format change would. */
function forgetStored(): void {
  const db = new Database(join(tmp.dir, "workbench.sqlite"));
  db.prepare("DELETE FROM analysis_cache").run();
  db.close();
}

function start(log: string[] = []) {
  const config = serveConfig({ "data-dir": tmp.dir, port: "0", "no-reference": true }, {});
  return startWorkbench(config, { log: (m) => log.push(m) });
}

beforeAll(async () => {
  server = await reference();
  const bench = await testBench({ dir: tmp.dir });
  const serverId = await addServer(bench.app, server.url);
  // four finished runs: every one is prepared by default; with `runs: 3` the oldest is left alone
  for (let i = 0; i < 4; i++) {
    const run = await runToEnd(bench, {
      dataset: "penguins",
      serverId,
      model: "lexical",
      splits: ["test"],
      concurrency: 4,
    });
    expect(run.status).toBe("done");
    runs.unshift(run.id); // newest first
  }
  await bench.engine.close();
  await bench.app.close();
  await bench.storage.close();
}, 120_000);

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe("start-up preparation", () => {
  it("compiles the analysis on its synthetic runs without an error, and stops at once when told", async () => {
    await expect(compileAnalysis()).resolves.toBeUndefined();
    let asked = 0;
    await compileAnalysis(() => ++asked > 0);
    expect(asked).toBe(1);
  });

  it("stores the converted data and default reports of every recent finished run", async () => {
    forgetStored();
    const log: string[] = [];
    const wb = await start(log);
    try {
      const prepared = await wb.prepared;
      expect(runs.length).toBeLessThanOrEqual(PREPARED_RUNS);
      expect(prepared).toEqual(runs);
      const items = ["species", "body_mass", "sex"];
      for (const id of prepared) {
        const keys = storedKeys(id);
        for (const item of items) {
          expect(keys.some((k) => k.startsWith("item:") && k.endsWith(`:${item}`))).toBe(true);
          expect(keys.some((k) => k.startsWith("report:") && k.includes(`:${item}|test|`))).toBe(true);
        }
      }
      expect(log.some((m) => /^reports of 4 recent run\(s\) ready in \d+ ms$/.test(m))).toBe(true);
      expect(log.filter((m) => m.includes("failed"))).toEqual([]);
      // what is served is what was prepared
      const res = await fetch(`${wb.url}/api/runs/${runs[0]}/report?item=species`);
      expect(res.status).toBe(200);
      const served = (await res.json()) as { n: number };
      expect(served.n).toBeGreaterThan(0);
    } finally {
      await wb.close();
    }
  });

  it("looks at the newest runs only, and skips runs whose reports are stored", async () => {
    const storage = openStorage(join(tmp.dir, "workbench.sqlite"));
    try {
      forgetStored();
      expect(await prepareRecentRuns(storage, undefined, { runs: 3 })).toEqual(runs.slice(0, 3));
      expect(storedKeys(runs[3])).toEqual([]);
      // the three newest are stored: only the oldest is left to prepare
      expect(await prepareRecentRuns(storage)).toEqual([runs[3]]);
      expect(storedKeys(runs[3]).length).toBeGreaterThan(0);
      expect(await prepareRecentRuns(storage)).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it("takes runs after the newest only while their predictions stay within the bound", async () => {
    const storage = openStorage(join(tmp.dir, "workbench.sqlite"));
    try {
      const sizes = (await storage.listStoredRuns()).map(
        (r) => r.counters.answered + r.counters.unknown + r.counters.escalated,
      );
      expect(sizes[0]).toBeGreaterThan(0);
      const within = sizes[0] + sizes[1];
      const prepare = (predictions: number) => {
        forgetStored();
        return prepareRecentRuns(storage, undefined, { predictions });
      };
      expect(await prepare(within)).toEqual(runs.slice(0, 2));
      expect(await prepare(within - 1)).toEqual(runs.slice(0, 1));
      // the newest run is prepared whatever its size
      expect(await prepare(1)).toEqual(runs.slice(0, 1));
    } finally {
      await storage.close();
    }
  });

  it("stops between items once told, and does not count the run it left", async () => {
    forgetStored();
    const storage = openStorage(join(tmp.dir, "workbench.sqlite"));
    try {
      // asked before the run, before its first item, before its second item (true from there on)
      let asked = 0;
      expect(await prepareRecentRuns(storage, () => ++asked >= 3)).toEqual([]);
      // the first item's conversion read every item of the run in one pass and stored them all; one report
      const keys = storedKeys(runs[0]);
      const items = (await analysisData(storage).run(runs[0])).specs.map((s) => s.name);
      expect(items.length).toBeGreaterThan(1);
      expect(keys.filter((k) => k.startsWith("item:")).map((k) => k.split(":")[2])).toEqual(
        [...items].sort(),
      );
      const reports = keys.filter((k) => k.startsWith("report:"));
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatch(/^report:\d+:species\|test\|/);
      expect(keys).toHaveLength(items.length + 1);
      expect(storedKeys(runs[1])).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it("drops a run's loaded item data from memory, but not a load still under way", async () => {
    const storage = openStorage(join(tmp.dir, "workbench.sqlite"));
    try {
      const data = analysisData(storage);
      const loaded = await data.run(runs[0]);
      const spec = data.spec(loaded, "species");
      const loading = data.itemData(loaded, spec);
      data.forgetItems(runs[0]);
      expect(data.itemData(loaded, spec)).toBe(loading); // not started twice
      const d = await loading;
      expect(d.m).toBeGreaterThan(0);
      data.forgetItems(runs[0]);
      const again = data.itemData(loaded, spec);
      expect(again).not.toBe(loading);
      expect((await again).exampleIds).toEqual(d.exampleIds);
    } finally {
      await storage.close();
    }
  });

  it("lets a close during the preparation end it early, leaving the database whole", async () => {
    forgetStored();
    const log: string[] = [];
    const wb = await start(log);
    await wb.close();
    expect(await wb.prepared).toEqual([]);
    expect(log.filter((m) => m.startsWith("reports of"))).toEqual([]);
    const db = new Database(join(tmp.dir, "workbench.sqlite"), { readonly: true });
    expect(db.prepare("PRAGMA integrity_check").pluck().get()).toBe("ok");
    db.close();
  });
});
