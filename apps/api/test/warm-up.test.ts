/**
 * What a started workbench does in the background: the analysis code compiled on synthetic runs, then the
 * reports of the most recent finished runs prepared and stored when they were not (a run finished by another
 * process, or stored data of an older format).
 */

import { join } from "node:path";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  // one more finished run than are prepared: the oldest is left alone
  for (let i = 0; i <= PREPARED_RUNS; i++) {
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

  it("stores the converted data and default reports of the most recent finished runs, not older ones", async () => {
    forgetStored();
    const log: string[] = [];
    const wb = await start(log);
    try {
      const prepared = await wb.prepared;
      expect(prepared).toEqual(runs.slice(0, PREPARED_RUNS));
      const items = ["species", "body_mass", "sex"];
      for (const id of prepared) {
        const keys = storedKeys(id);
        for (const item of items) {
          expect(keys.some((k) => k.startsWith("item:") && k.endsWith(`:${item}`))).toBe(true);
          expect(keys.some((k) => k.startsWith("report:") && k.includes(`:${item}|test|`))).toBe(true);
        }
      }
      expect(storedKeys(runs[PREPARED_RUNS])).toEqual([]);
      expect(log.some((m) => /^reports of 3 recent run\(s\) ready in \d+ ms$/.test(m))).toBe(true);
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

  it("takes runs after the newest only while their predictions stay within the bound", async () => {
    const storage = openStorage(join(tmp.dir, "workbench.sqlite"));
    try {
      const sizes = (await storage.listStoredRuns()).map(
        (r) => r.counters.answered + r.counters.unknown + r.counters.escalated,
      );
      expect(sizes[0]).toBeGreaterThan(0);
      const within = sizes[0] + sizes[1];
      expect(await prepareRecentRuns(storage, undefined, { predictions: within })).toEqual(runs.slice(0, 2));
      expect(await prepareRecentRuns(storage, undefined, { predictions: within - 1 })).toEqual(
        runs.slice(0, 1),
      );
      // the newest run is prepared whatever its size
      expect(await prepareRecentRuns(storage, undefined, { predictions: 1 })).toEqual(runs.slice(0, 1));
      expect(await prepareRecentRuns(storage, () => true)).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it("lets a close during the preparation end it early, leaving the database whole", async () => {
    forgetStored();
    const wb = await start();
    await wb.close();
    const prepared = await wb.prepared;
    expect(prepared.length).toBeLessThan(PREPARED_RUNS);
    const db = new Database(join(tmp.dir, "workbench.sqlite"), { readonly: true });
    expect(db.prepare("PRAGMA integrity_check").pluck().get()).toBe("ok");
    db.close();
  });
});
