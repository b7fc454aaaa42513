/**
 * People's tokens end to end, on a real SQLite file and a real PostgreSQL database: `workbench tokens` creates,
 * lists and revokes them; two API instances on the same store require one as soon as one is active, take an
 * active one, and refuse a revoked one on the very next request; the token is in no answer, log line or row.
 */

import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkbench, type Workbench } from "../src/cli/serve.js";
import { serveConfig } from "../src/config.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { inProcess } from "./cli-in-process.js";
import { uploadBody } from "./fixtures.js";
import { reference, tempDir } from "./helpers.js";
import { type TestDatabase, testDatabase } from "./postgres.js";

const tmp = tempDir("wb-tokens-");
let db: TestDatabase;
let ref: DecisionServerHandle;

beforeAll(async () => {
  process.env.WORKBENCH_SECRET_KEY = "cd".repeat(32);
  db = await testDatabase();
  ref = await reference();
});

afterAll(async () => {
  delete process.env.WORKBENCH_SECRET_KEY;
  await ref?.close();
  await db?.drop();
  tmp.cleanup();
});

describe("workbench tokens: usage", () => {
  it.each([
    [["tokens"], "unknown tokens command"],
    [["tokens", "make", "--name", "alice"], "unknown tokens command"],
    [["tokens", "create"], "needs --name NAME"],
    [["tokens", "create", "--name", "Alice"], "1 to 64 of a-z"],
    [["tokens", "create", "--name", "a".repeat(65)], "1 to 64 of a-z"],
    [["tokens", "revoke", "--name", "a b"], "1 to 64 of a-z"],
    [["tokens", "list", "--name", "alice"], "unknown flag"],
    [["tokens", "list", "--database-url", "mysql://x/y"], "PostgreSQL URL"],
  ])("workbench %j exits 2 saying what is wrong", async (args, message) => {
    const res = await inProcess([...args, "--data-dir", join(tmp.dir, "usage")], {});
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
    expect(res.stdout).toBe("");
  });
});

/** The shared token (--token) of a third instance on the same store. */
const SHARED = "shared-token-0123456789";

/** The flags that name the store, for the CLI and for serve. */
type Where = { "data-dir": string } | { "data-dir": string; "database-url": string };

function storeTests(kind: string, where: () => Where, storedText: () => Promise<string>): void {
  describe(`person tokens on ${kind}`, () => {
    const instances: Workbench[] = [];
    const logs: string[] = [];
    let a: Workbench;
    let b: Workbench;
    let shared: Workbench;

    const cli = (...args: string[]) =>
      inProcess(["tokens", ...args, ...Object.entries(where()).flatMap(([k, v]) => [`--${k}`, v])], {});
    const get = (wb: Workbench, token?: string) =>
      wb.app.inject({
        method: "GET",
        url: "/api/servers",
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      });

    beforeAll(async () => {
      const start = async (logger: boolean, token?: string, flags: Record<string, string> = {}) => {
        const config = serveConfig({ ...where(), port: "0", "no-reference": true, token, ...flags }, {});
        const stream = { write: (line: string) => void logs.push(line) };
        const wb = await startWorkbench(config, logger ? { logger: { level: "info", stream } } : {});
        instances.push(wb);
        return wb;
      };
      a = await start(true);
      b = await start(false);
      // no run workers here: on a shared database the run below goes to the queue, and this instance, guarded by
      // its token, would refuse the loopback reference server had its worker taken the chunk
      shared = await start(false, SHARED, "database-url" in where() ? { workers: "0" } : {});
    });

    afterAll(async () => {
      for (const wb of instances) await wb.close();
    });

    it("creates, lists and revokes tokens; both instances follow at once", async () => {
      // no token active, no --token: the API is open, and an upload sent without a token is nobody's
      expect((await get(a)).statusCode).toBe(200);
      const upload = (wb: Workbench, name: string, headers: Record<string, string>) =>
        wb.app.inject({ method: "POST", url: "/api/datasets", headers, payload: uploadBody(6, name) });
      const anonymous = await upload(a, "by-nobody", {});
      expect(anonymous.statusCode, anonymous.body).toBe(201);
      expect(anonymous.json().createdBy).toBeNull();

      const alice = await cli("create", "--name", "alice");
      expect(alice.code, alice.stderr).toBe(0);
      expect(alice.stdout).toMatch(/^wbt_[A-Za-z0-9_-]{43}\n$/);
      const aliceToken = alice.stdout.trim();
      const bob = (await cli("create", "--name", "bob")).stdout.trim();
      const twice = await cli("create", "--name", "alice");
      expect(twice.code).toBe(1);
      expect(twice.stderr).toContain("exists already");
      expect(twice.stdout).toBe("");

      // a token is active: every /api request needs one, on both instances
      for (const wb of [a, b]) {
        const none = await get(wb);
        expect(none.statusCode).toBe(401);
        expect(none.json().error.message).toContain("Authorization: Bearer <token>");
        const wrong = await get(wb, `${aliceToken}x`);
        expect(wrong.statusCode).toBe(401);
        expect(wrong.json().error.message).toContain("wrong or revoked");
        expect(wrong.body).not.toContain(aliceToken);
        expect((await get(wb, aliceToken)).statusCode).toBe(200);
        expect((await get(wb, bob)).statusCode).toBe(200);
      }
      expect((await a.app.inject({ method: "GET", url: "/health" })).statusCode).toBe(200);

      // a run started with alice's token is hers, as every instance lists it
      const asAlice = { authorization: `Bearer ${aliceToken}` };
      const server = await a.app.inject({
        method: "POST",
        url: "/api/servers",
        headers: asAlice,
        payload: { name: "reference", baseUrl: ref.url, models: ["lexical"], deterministic: true },
      });
      expect(server.statusCode, server.body).toBe(201);
      const started = await a.app.inject({
        method: "POST",
        url: "/api/runs",
        headers: asAlice,
        payload: { dataset: "penguins", serverId: server.json().id, model: "lexical", limit: 40 },
      });
      expect(started.statusCode, started.body).toBe(201);
      const run = started.json() as RunSummary;
      expect(run.createdBy).toBe("alice");
      await a.engine.settle(run.id);
      // the run is over, every example answered (a failure here says how it ended, not only that a fit found nothing)
      const over = (
        await a.app.inject({ method: "GET", url: `/api/runs/${run.id}`, headers: asAlice })
      ).json() as RunSummary;
      expect({ status: over.status, error: over.error, done: over.progress.done }).toEqual({
        status: "done",
        error: null,
        done: run.progress.total,
      });
      expect(over.progress.answered + over.progress.unknown, JSON.stringify(over.progress)).toBeGreaterThan(
        0,
      );
      const runs = (await b.app.inject({ method: "GET", url: "/api/runs", headers: asAlice })).json();
      expect(runs.map((r: RunSummary) => [r.id, r.createdBy])).toEqual([[run.id, "alice"]]);
      expect(JSON.stringify(runs)).not.toContain(aliceToken);
      // and so is a calibration fitted with it
      const fitted = await a.app.inject({
        method: "POST",
        url: `/api/runs/${run.id}/calibrations`,
        headers: asAlice,
        payload: {},
      });
      expect(fitted.statusCode, fitted.body).toBe(201);
      expect(fitted.json().createdBy).toBe("alice");
      const calibrations = (
        await b.app.inject({ method: "GET", url: "/api/calibrations", headers: asAlice })
      ).json();
      expect(calibrations.map((c: { createdBy: string | null }) => c.createdBy)).toEqual(["alice"]);
      // and so is a dataset uploaded with it; one uploaded with the shared token is nobody's
      const hers = await upload(a, "by-alice", asAlice);
      expect(hers.statusCode, hers.body).toBe(201);
      expect(hers.json().createdBy).toBe("alice");
      const viaShared = await upload(shared, "by-shared", { authorization: `Bearer ${SHARED}` });
      expect(viaShared.statusCode, viaShared.body).toBe(201);
      expect(viaShared.json().createdBy).toBeNull();
      const datasets = (await b.app.inject({ method: "GET", url: "/api/datasets", headers: asAlice })).json();
      const uploaded = datasets.filter((d: { source: string }) => d.source === "upload");
      expect(uploaded.map((d: { name: string; createdBy: string | null }) => [d.name, d.createdBy])).toEqual([
        ["by-alice", "alice"],
        ["by-nobody", null],
        ["by-shared", null],
      ]);
      expect(datasets.find((d: { name: string }) => d.name === "penguins").createdBy).toBeNull();
      for (const [name, by] of [
        ["by-alice", "alice"],
        ["by-nobody", null],
        ["by-shared", null],
      ]) {
        const detail = await b.app.inject({ method: "GET", url: `/api/datasets/${name}`, headers: asAlice });
        expect(detail.statusCode, detail.body).toBe(200);
        expect(detail.json().createdBy).toBe(by);
      }
      expect(JSON.stringify(datasets)).not.toContain(aliceToken);

      const listed = await cli("list", "--json");
      expect(listed.code).toBe(0);
      const tokens = JSON.parse(listed.stdout) as { name: string; revokedAt: string | null }[];
      expect(tokens.map((t) => [t.name, t.revokedAt])).toEqual([
        ["alice", null],
        ["bob", null],
      ]);
      const hash = createHash("sha256").update(aliceToken).digest("hex");
      for (const text of [listed.stdout, (await cli("list")).stdout]) {
        expect(text).toContain("alice");
        expect(text).not.toContain(aliceToken);
        expect(text).not.toContain(hash);
      }

      // revoked through the CLI (a store of its own): refused by both instances on the very next request
      const revoked = await cli("revoke", "--name", "alice");
      expect(revoked.code, revoked.stderr).toBe(0);
      expect((await get(a, aliceToken)).statusCode).toBe(401);
      expect((await get(b, aliceToken)).statusCode).toBe(401);
      expect((await cli("revoke", "--name", "alice")).code).toBe(1);
      expect((await cli("list")).stdout).toMatch(/alice {2}created \S+ {2}revoked /);

      // revoked through one instance's storage: the other refuses it at once (carol's keeps tokens required)
      const carol = (await cli("create", "--name", "carol")).stdout.trim();
      expect((await get(b, bob)).statusCode).toBe(200);
      expect(await a.storage.revokeToken("bob")).toBe(true);
      expect((await get(b, bob)).statusCode).toBe(401);
      expect((await get(b, carol)).statusCode).toBe(200);

      // no token active any more: open again
      expect(await b.storage.revokeToken("carol")).toBe(true);
      expect((await get(a)).statusCode).toBe(200);

      // only the hash is stored; no log line holds the token
      const stored = await storedText();
      expect(stored).toContain(hash);
      expect(stored).not.toContain(aliceToken);
      expect(stored).not.toContain(bob);
      expect(logs.length).toBeGreaterThan(0);
      expect(logs.join("")).not.toContain(aliceToken);
      expect(logs.join("")).not.toContain(bob);
    });
  });
}

const sqliteDir = join(tmp.dir, "sqlite");
storeTests(
  "a SQLite file",
  () => ({ "data-dir": sqliteDir }),
  async () =>
    // every byte of the data folder: the database file, its WAL, the key
    readdirSync(sqliteDir)
      .map((f) => readFileSync(join(sqliteDir, f)).toString("latin1"))
      .join("\n"),
);

storeTests(
  "PostgreSQL",
  () => ({ "data-dir": join(tmp.dir, "pg"), "database-url": db.url }),
  async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT * FROM tokens");
      return JSON.stringify(rows);
    } finally {
      await client.end();
    }
  },
);
