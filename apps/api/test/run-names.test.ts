/**
 * A run's name and note: given when it starts (POST /api/runs) or later (PATCH /api/runs/:id, null removes
 * either), trimmed, shown in every RunSummary, and refused with a 400 that says what is wrong and what would be
 * right; on a SQLite workbench and on one on PostgreSQL.
 */

import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkbench, type Workbench } from "../src/cli/serve.js";
import { serveConfig } from "../src/config.js";
import type { RunSummary } from "../src/shapes/runs.js";
import {
  addDataset,
  addServer,
  body,
  post,
  reference,
  type TestBench,
  tempDir,
  testBench,
} from "./helpers.js";
import { type TestDatabase, testDatabase } from "./postgres.js";

/** A workbench under test: its app, and how to wait until a run has settled. */
interface Bench {
  app: FastifyInstance;
  settle(id: string): Promise<void>;
}

let ref: DecisionServerHandle;

beforeAll(async () => {
  ref = await reference();
});

afterAll(async () => {
  await ref?.close();
});

function patch(app: FastifyInstance, id: string, payload: unknown): Promise<LightMyRequestResponse> {
  return app.inject({ method: "PATCH", url: `/api/runs/${id}`, payload: payload as object });
}

async function get(app: FastifyInstance, id: string): Promise<RunSummary> {
  return body<RunSummary>(await app.inject({ method: "GET", url: `/api/runs/${id}` }));
}

const error = (res: LightMyRequestResponse) =>
  body<{ error: { code: string; message: string; details?: { field: string; message: string }[] } }>(res)
    .error;

/** The cases, run against the workbench `open` gives (once per describe block). */
function runNames(store: string, open: () => Promise<Bench>) {
  describe(`run names and notes (${store})`, () => {
    let bench: Bench;
    let serverId: string;
    const start = async (extra: Record<string, unknown> = {}) =>
      post(bench.app, "/api/runs", { dataset: "tickets", serverId, model: "lexical", limit: 4, ...extra });

    beforeAll(async () => {
      bench = await open();
      serverId = await addServer(bench.app, ref.url);
      await addDataset(bench.app, 12);
    });

    it("starts a run with a trimmed name and a note, and one without either (null)", async () => {
      const named = await start({ name: "  before the swap  ", note: "vendor weights v1\nas shipped" });
      expect(named.statusCode, named.body).toBe(201);
      const run = body<RunSummary>(named);
      expect(run).toMatchObject({ name: "before the swap", note: "vendor weights v1\nas shipped" });
      const plain = body<RunSummary>(await start());
      expect(plain.name).toBeNull();
      expect(plain.note).toBeNull();
      await bench.settle(run.id);
      await bench.settle(plain.id);
      const listed = body<RunSummary[]>(await bench.app.inject({ method: "GET", url: "/api/runs" }));
      expect(listed.find((r) => r.id === run.id)).toMatchObject({
        status: "done",
        name: "before the swap",
        note: "vendor weights v1\nas shipped",
      });
      expect(listed.find((r) => r.id === plain.id)).toMatchObject({ name: null, note: null });
    });

    it("renames a run, changes or removes its note, and leaves an absent field as it is", async () => {
      const { id } = body<RunSummary>(await start({ name: "first", note: "a note" }));
      // renamed while it may still be running: finishing the run keeps the new name
      const renamed = await patch(bench.app, id, { name: " after the swap " });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(body<RunSummary>(renamed)).toMatchObject({ id, name: "after the swap", note: "a note" });
      await bench.settle(id);
      expect(await get(bench.app, id)).toMatchObject({
        status: "done",
        name: "after the swap",
        note: "a note",
      });

      expect(body<RunSummary>(await patch(bench.app, id, { note: "   " }))).toMatchObject({
        name: "after the swap",
        note: null,
      });
      expect(body<RunSummary>(await patch(bench.app, id, { note: "weights v2" }))).toMatchObject({
        name: "after the swap",
        note: "weights v2",
      });
      expect(body<RunSummary>(await patch(bench.app, id, {}))).toMatchObject({
        name: "after the swap",
        note: "weights v2",
      });
      expect(body<RunSummary>(await patch(bench.app, id, { name: null }))).toMatchObject({
        name: null,
        note: "weights v2",
      });
      expect(await get(bench.app, id)).toMatchObject({ name: null, note: "weights v2" });
      // 80 characters is the most, counted as characters (an emoji is one)
      const longest = `${"🙂".repeat(40)}${"a".repeat(40)}`;
      expect(body<RunSummary>(await patch(bench.app, id, { name: longest, note: null }))).toMatchObject({
        name: longest,
        note: null,
      });
    });

    it("refuses a bad name or note with a sentence per field, and changes nothing", async () => {
      const { id } = body<RunSummary>(await start({ name: "kept" }));
      const cases: [unknown, RegExp, string][] = [
        [{ name: "" }, /^name is empty; give 1 to 80 characters, or null to remove the name$/, "name"],
        [{ name: "   " }, /^name is empty/, "name"],
        [{ name: "a\nb" }, /^name must be one line of text without tabs, line breaks/, "name"],
        [{ name: "a\u0007b" }, /control characters/, "name"],
        [{ name: "x".repeat(81) }, /^name has 81 characters; give at most 80/, "name"],
        [{ note: "y".repeat(2001) }, /^note has 2,001 characters; give at most 2,000$/, "note"],
        [{ note: "nul\u0000byte" }, /^note must be text: tabs and line breaks are fine/, "note"],
      ];
      for (const [payload, message, field] of cases) {
        const res = await patch(bench.app, id, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(error(res)).toMatchObject({ code: "invalid_request", details: [{ field }] });
        expect(error(res).message).toMatch(message);
      }
      // both wrong: both said
      const both = error(await patch(bench.app, id, { name: "", note: "z".repeat(2001) }));
      expect(both.details?.map((d) => d.field)).toEqual(["name", "note"]);
      expect(both.message).toMatch(/^name is empty.*; note has 2,001 characters/);
      // the wrong type, an unknown field
      expect(error(await patch(bench.app, id, { name: 7 })).message).toMatch(
        /^body\.name must be of type string,null/,
      );
      expect(error(await patch(bench.app, id, { title: "x" })).message).toMatch(
        /unknown field "title"; allowed fields: name, note/,
      );
      expect(await get(bench.app, id)).toMatchObject({ name: "kept", note: null });

      const missing = await patch(bench.app, "run_nope", { name: "x" });
      expect(missing.statusCode).toBe(404);
      expect(error(missing).message).toMatch(/^run "run_nope" does not exist/);

      // a run started with a bad name is not started at all
      const before = body<RunSummary[]>(await bench.app.inject({ method: "GET", url: "/api/runs" })).length;
      const refused = await start({ name: "x".repeat(81) });
      expect(refused.statusCode).toBe(400);
      expect(error(refused).message).toMatch(/^name has 81 characters/);
      const after = body<RunSummary[]>(await bench.app.inject({ method: "GET", url: "/api/runs" })).length;
      expect(after).toBe(before);
      await bench.settle(id);
    });
  });
}

const benches: TestBench[] = [];
runNames("SQLite", async () => {
  const bench = await testBench();
  benches.push(bench);
  return { app: bench.app, settle: (id) => bench.engine.settle(id) };
});
afterAll(async () => {
  for (const bench of benches) await bench.close();
});

let db: TestDatabase | undefined;
let workbench: Workbench | undefined;
const dir = tempDir("wb-run-names-pg-");
runNames("PostgreSQL", async () => {
  process.env.WORKBENCH_SECRET_KEY = "cd".repeat(32);
  db = await testDatabase();
  workbench = await startWorkbench(
    serveConfig({ "data-dir": dir.dir, port: "0", "no-reference": true, "database-url": db.url }, {}),
  );
  const wb = workbench;
  return { app: wb.app, settle: (id) => wb.engine.settle(id) };
});
afterAll(async () => {
  await workbench?.close();
  await db?.drop();
  delete process.env.WORKBENCH_SECRET_KEY;
  dir.cleanup();
});
