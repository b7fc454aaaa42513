import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSummary } from "../src/shapes/runs.js";
import { listeningUrl, workbench } from "./child.js";
import { uploadBody } from "./fixtures.js";
import { reference, tempDir } from "./helpers.js";
import { readEvents } from "./sse.js";

const KEY = `sk-leak-${randomBytes(12).toString("hex")}`;
const QUERY_SECRET = `qs-${randomBytes(12).toString("hex")}`;
const PASSWORD = `pw-${randomBytes(12).toString("hex")}`;
const SECRETS = [KEY, QUERY_SECRET, PASSWORD];
/** The forms a secret could leak in: as is, base64 (Basic headers), URL-encoded. */
const forms = (s: string) => [s, Buffer.from(s).toString("base64"), encodeURIComponent(s)];

const tmp = tempDir();
let keyed: DecisionServerHandle;
let open: DecisionServerHandle;

beforeAll(async () => {
  keyed = await reference({ apiKey: KEY });
  open = await reference();
});

afterAll(async () => {
  await keyed.close();
  await open.close();
  tmp.cleanup();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function leaks(where: string, bytes: Buffer | string): string[] {
  const text = typeof bytes === "string" ? bytes : bytes.toString("latin1");
  return SECRETS.flatMap((s) =>
    forms(s)
      .filter((f) => text.includes(f))
      .map((f) => `${where} holds ${f.slice(0, 6)}…`),
  );
}

describe("a whole session with a known key", () => {
  it("leaves the key in no database byte, log line, response or export", async () => {
    const dataDir = join(tmp.dir, "data");
    const child = workbench(["serve", "--port", "0", "--no-reference", "--log-level", "debug"], {
      WORKBENCH_DATA_DIR: dataDir,
    });
    const url = listeningUrl(await child.firstLine);
    const responses: string[] = [];
    const call = async (method: string, path: string, payload?: unknown, raw?: string) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers:
          payload !== undefined || raw !== undefined
            ? { "content-type": "application/json" }
            : { "x-workbench": "1" },
        body: raw ?? (payload === undefined ? undefined : JSON.stringify(payload)),
      });
      const text = await res.text();
      responses.push(`${method} ${path} -> ${res.status}\n${text}`);
      return { status: res.status, text, json: () => JSON.parse(text) };
    };

    const created = await call("POST", "/api/servers", {
      name: "keyed",
      baseUrl: keyed.url,
      models: ["lexical"],
      apiKey: KEY,
      deterministic: true,
      backoff: 0.001,
    });
    expect(created.status).toBe(201);
    const id = created.json().id as string;
    const viaUrl = await call("POST", "/api/servers", {
      name: "credentials in the URL",
      baseUrl: `http://reader:${PASSWORD}@${open.url.slice(7)}/?token=${QUERY_SECRET}`,
      models: ["lexical"],
    });
    expect(viaUrl.status).toBe(201);
    await call("GET", "/api/servers");
    await call("GET", `/api/servers/${id}`);
    expect((await call("POST", `/api/servers/${id}/check`)).json().ok).toBe(true);
    await call("POST", `/api/servers/${viaUrl.json().id}/check`);
    await call("PATCH", `/api/servers/${id}`, { name: "keyed again", apiKey: KEY });
    await call("POST", "/api/servers", undefined, `{"name": "broken", "apiKey": "${KEY}", `);
    await call("POST", "/api/servers", {
      name: "bad",
      baseUrl: `ftp://x/?k=${QUERY_SECRET}`,
      models: ["m"],
      apiKey: KEY,
    });
    expect((await call("POST", "/api/datasets", uploadBody(12))).status).toBe(201);

    const run = (
      await call("POST", "/api/runs", { dataset: "tickets", serverId: id, model: "lexical", limit: 4 })
    ).json() as RunSummary;
    const events = await readEvents(`${url}/api/runs/${run.id}/events`);
    responses.push(JSON.stringify(events.events));
    const other = (
      await call("POST", "/api/runs", {
        dataset: "tickets",
        serverId: viaUrl.json().id,
        model: "lexical",
        limit: 2,
      })
    ).json() as RunSummary;
    responses.push(JSON.stringify((await readEvents(`${url}/api/runs/${other.id}/events`)).events));
    expect(open.requests.every((r) => r.headers.authorization?.startsWith("Basic "))).toBe(true);

    expect((await call("GET", `/api/runs/${run.id}`)).json().status).toBe("done");
    await call("GET", "/api/runs");
    expect((await call("POST", `/api/runs/${run.id}/replay`)).json().called).toBe(true);
    for (const path of [
      `/api/runs/${run.id}/report`,
      `/api/runs/${run.id}/items?filter=all`,
      `/api/runs/${run.id}/export.csv`,
      `/api/runs/${run.id}/export.json`,
      `/api/runs/${run.id}/report.json`,
      `/api/compare?runs=${run.id},${other.id}`,
    ]) {
      await call("GET", path);
    }
    const fit = await call("POST", `/api/runs/${run.id}/calibrations`, {
      fitSplit: "calibration",
      evalSplit: "test",
      methods: ["temperature"],
    });
    expect(fit.status).toBe(201);
    expect((await call("GET", `/api/calibrations/${fit.json().id}/file`)).status).toBe(200);
    const keyedDecisions = keyed.requests.length;
    expect(keyedDecisions).toBeGreaterThan(8);
    expect(keyed.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

    // While running: the database file and its write-ahead log.
    const found: string[] = [];
    for (const file of filesUnder(dataDir)) found.push(...leaks(file, readFileSync(file)));

    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    for (const file of filesUnder(dataDir)) found.push(...leaks(file, readFileSync(file)));
    found.push(...leaks("stdout", child.stdout()), ...leaks("stderr", child.stderr()));
    for (const [i, r] of responses.entries()) found.push(...leaks(`response ${i}: ${r.split("\n")[0]}`, r));
    expect(found).toEqual([]);
    expect(child.stderr()).toContain("/api/servers");
    expect(responses.length).toBeGreaterThan(15);
  });
});
