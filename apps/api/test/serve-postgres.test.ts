/**
 * `workbench serve` on PostgreSQL (--database-url): two API instances on one database, a dataset uploaded through
 * one (its upload thread writes PostgreSQL), a run made by it against the reference server, and the other
 * instance serving the same run, report and dataset; the database URL's password appears in no answer.
 */

import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkbench, type Workbench } from "../src/cli/serve.js";
import { type ServeConfig, serveConfig } from "../src/config.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { addDataset, addServer, body, post, reference, tempDir } from "./helpers.js";
import { type TestDatabase, testDatabase } from "./postgres.js";

let db: TestDatabase;
let ref: DecisionServerHandle;
const instances: Workbench[] = [];
const dirs: (() => void)[] = [];

async function instance(url: string): Promise<Workbench> {
  const tmp = tempDir("wb-pg-serve-");
  dirs.push(tmp.cleanup);
  const config: ServeConfig = serveConfig(
    { "data-dir": tmp.dir, port: "0", "no-reference": true, "database-url": url },
    {},
  );
  const wb = await startWorkbench(config);
  instances.push(wb);
  return wb;
}

beforeAll(async () => {
  // one secret key for every instance, as a team deployment sets it
  process.env.WORKBENCH_SECRET_KEY = "ab".repeat(32);
  db = await testDatabase();
  ref = await reference();
});

afterAll(async () => {
  delete process.env.WORKBENCH_SECRET_KEY;
  for (const wb of instances) await wb.close();
  await ref?.close();
  await db?.drop();
  for (const cleanup of dirs) cleanup();
});

describe("serve on PostgreSQL", () => {
  it("refuses a database URL that is not PostgreSQL's, without repeating it", () => {
    expect(() => serveConfig({ "database-url": "mysql://u:secret@db/x" }, {})).toThrow(/PostgreSQL URL/);
    expect(() => serveConfig({ "database-url": "mysql://u:secret@db/x" }, {})).not.toThrow(/secret/);
  });

  it("two instances share datasets, runs and reports; the password is never shown", async () => {
    const a = await instance(db.url);
    const b = await instance(db.url);
    const password = new URL(db.url).password;
    if (password) expect(a.storage.path).not.toContain(password);
    await addDataset(a.app, 30, "tickets_pg");
    const serverId = await addServer(a.app, ref.url);
    const started = await post(a.app, "/api/runs", { dataset: "tickets_pg", serverId, model: "lexical" });
    expect(started.statusCode, started.body).toBe(201);
    const id = body<RunSummary>(started).id;
    await a.engine.settle(id);
    const fromA = body<RunSummary>(await a.app.inject({ method: "GET", url: `/api/runs/${id}` }));
    expect(fromA.status).toBe("done");
    // the run's splits by default: calibration and test, 20 of the 30 examples
    expect(fromA.progress.done).toBe(20);
    // the other instance reads the same database
    const fromB = body<RunSummary>(await b.app.inject({ method: "GET", url: `/api/runs/${id}` }));
    expect(fromB).toMatchObject({ id, status: "done", headline: fromA.headline });
    const reportA = await a.app.inject({ method: "GET", url: `/api/runs/${id}/report?item=team&split=all` });
    const reportB = await b.app.inject({ method: "GET", url: `/api/runs/${id}/report?item=team&split=all` });
    expect(reportA.statusCode, reportA.body).toBe(200);
    expect(reportB.body).toBe(reportA.body);
    expect(body<{ n: number }>(reportA).n).toBe(20);
    const datasets = await b.app.inject({ method: "GET", url: "/api/datasets/tickets_pg" });
    expect(datasets.statusCode).toBe(200);
    for (const res of [reportA, datasets, await b.app.inject({ method: "GET", url: "/api/runs" })]) {
      if (password) expect(res.body).not.toContain(password);
      expect(res.body).not.toContain(db.url);
    }
  });
});
