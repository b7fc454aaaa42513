/**
 * The outbound policy of server base URLs (SSRF): what is refused when a server is added or changed, what is
 * refused when a socket connects (a host name resolving to a refused address), redirects, and how much of a
 * remote reply a check quotes. Real apps over a real SQLite file, real reference servers and real local HTTP
 * servers standing for an internal service.
 */

import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { RunEngine } from "../src/engine/engine.js";
import { SecretBox } from "../src/secrets/box.js";
import { serverRow } from "../src/servers/view.js";
import type { RunSummary } from "../src/shapes/runs.js";
import type { ServerCheck as CheckResult } from "../src/shapes/servers.js";
import { openStorage, type SqliteStorage } from "../src/storage/sqlite.js";
import { uploadBody } from "./fixtures.js";
import { reference, type TestBench, tempDir, testBench } from "./helpers.js";

const TOKEN = "token-ssrf-0123456789abcdef";

/** Headers of every request: the token when the bench has one, and the web app's header on state changes. */
function call(
  app: FastifyInstance,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  payload?: object,
) {
  return app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${TOKEN}`, "x-workbench": "1" },
    ...(payload === undefined ? {} : { payload }),
  });
}

const server = (baseUrl: string, extra: Record<string, unknown> = {}) => ({
  name: "target",
  baseUrl,
  models: ["lexical"],
  retries: 0,
  backoff: 0.001,
  timeout: 5,
  deterministic: true,
  ...extra,
});

/** A local HTTP server standing for an internal service; counts what reaches it. */
interface Internal {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

async function internal(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Internal> {
  const hits: string[] = [];
  const srv: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => handler(req, res));
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    hits,
    async close() {
      srv.closeAllConnections();
      await new Promise((resolve) => srv.close(resolve));
    },
  };
}

let ref: DecisionServerHandle;
const benches: TestBench[] = [];

beforeAll(async () => {
  ref = await reference();
});
afterAll(async () => {
  await ref.close();
});
afterEach(async () => {
  while (benches.length) await benches.pop()?.close();
});

async function bench(opts: { token?: string; allowPrivateServers?: boolean } = {}): Promise<TestBench> {
  const b = await testBench(opts);
  benches.push(b);
  return b;
}

describe("base URLs refused when a server is added or changed", () => {
  const linkLocal = [
    "http://169.254.169.254",
    "http://169.254.169.254/latest/meta-data",
    "http://[fd00:ec2::254]",
    "http://[::ffff:169.254.169.254]",
    "http://[::ffff:a9fe:a9fe]",
    "http://[64:ff9b::169.254.169.254]",
    "http://2852039166/",
    "http://0xa9fea9fe/",
    "http://0251.0376.0251.0376/",
    "http://169.254.0.1:8080",
    "http://[fe80::1]",
    "http://100.100.100.200",
    "http://metadata.google.internal",
    "http://224.0.0.1",
  ];

  for (const mode of [{}, { token: TOKEN, allowPrivateServers: true }, { token: TOKEN }]) {
    it(`refuses link-local and cloud metadata hosts always (${mode.token ? "token" : "no token"}${
      mode.allowPrivateServers ? ", --allow-private-servers" : ""
    })`, async () => {
      const b = await bench(mode);
      for (const baseUrl of linkLocal) {
        const res = await call(b.app, "POST", "/api/servers", server(baseUrl));
        expect(res.statusCode, baseUrl).toBe(400);
        const message = res.json().error.message as string;
        expect(message, baseUrl).toContain("never connects to");
        expect(message, baseUrl).toMatch(
          /169\.254\.0\.0\/16|169\.254\.169\.254\/32|fd00:ec2::254\/128|fe80::\/10|100\.100\.100\.200\/32|224\.0\.0\.0\/4/,
        );
        expect(message, baseUrl).not.toContain("meta-data");
      }
      expect((await call(b.app, "GET", "/api/servers")).json()).toEqual([]);
    });
  }

  it("refuses private and loopback hosts with a token only, naming the range and --allow-private-servers", async () => {
    const b = await bench({ token: TOKEN });
    const cases: [string, string][] = [
      [ref.url, "127.0.0.0/8"],
      ["http://10.1.2.3:8009", "10.0.0.0/8"],
      ["http://172.16.9.9", "172.16.0.0/12"],
      ["http://192.168.1.20", "192.168.0.0/16"],
      ["http://100.64.0.7", "100.64.0.0/10"],
      ["http://198.18.0.1", "198.18.0.0/15"],
      ["http://0.0.0.0:8009", "0.0.0.0/8"],
      ["http://0/", "0.0.0.0/8"],
      ["http://[::1]:8009", "::1/128"],
      ["http://[::]:8009", "::/128"],
      ["http://[fd12:3456::1]", "fc00::/7"],
      ["http://[::ffff:10.0.0.1]", "10.0.0.0/8"],
      ["http://2130706433/", "127.0.0.0/8"],
      ["http://localhost:8009", "127.0.0.0/8"],
      ["http://api.localhost:8009", "127.0.0.0/8"],
    ];
    for (const [baseUrl, range] of cases) {
      const res = await call(b.app, "POST", "/api/servers", server(baseUrl));
      expect(res.statusCode, baseUrl).toBe(400);
      const message = res.json().error.message as string;
      expect(message, baseUrl).toContain("--allow-private-servers");
      expect(message, baseUrl).toContain(range);
    }
    expect((await call(b.app, "GET", "/api/servers")).json()).toEqual([]);

    // without a token, and with --allow-private-servers, they are allowed (the reference server answers)
    for (const mode of [{}, { token: TOKEN, allowPrivateServers: true }]) {
      const allowed = await bench(mode);
      for (const [baseUrl] of cases) {
        const res = await call(allowed.app, "POST", "/api/servers", server(baseUrl));
        expect(res.statusCode, baseUrl).toBe(201);
        if (baseUrl !== ref.url) continue;
        const check = await call(allowed.app, "POST", `/api/servers/${res.json().id}/check`);
        expect(check.json<CheckResult>().ok).toBe(true);
      }
    }
  });

  it("refuses a PATCH to a refused host and keeps the server as it was", async () => {
    const b = await bench({ token: TOKEN });
    const created = await call(b.app, "POST", "/api/servers", server("https://decisions.example.com/base"));
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    for (const baseUrl of ["http://169.254.169.254", ref.url, "http://[::ffff:7f00:1]"]) {
      const res = await call(b.app, "PATCH", `/api/servers/${id}`, { baseUrl });
      expect(res.statusCode, baseUrl).toBe(400);
    }
    expect((await call(b.app, "GET", `/api/servers/${id}`)).json().baseUrl).toBe(
      "https://decisions.example.com/base",
    );
  });
});

/** Two apps over one storage: one without a token (where servers were added), one with (which must refuse). */
interface TwoModes {
  storage: SqliteStorage;
  secrets: SecretBox;
  open: FastifyInstance;
  strict: FastifyInstance;
  strictEngine: RunEngine;
  close(): Promise<void>;
}

async function twoModes(): Promise<TwoModes> {
  const tmp = tempDir();
  const storage = openStorage(join(tmp.dir, "workbench.sqlite"));
  const secrets = new SecretBox(randomBytes(32));
  const openEngine = new RunEngine({ storage, secrets });
  const strictEngine = new RunEngine({ storage, secrets, outbound: { allowPrivate: false } });
  const open = await buildApp({ storage, engine: openEngine, secrets });
  const strict = await buildApp({ storage, engine: strictEngine, secrets, token: TOKEN });
  return {
    storage,
    secrets,
    open,
    strict,
    strictEngine,
    async close() {
      await openEngine.close();
      await strictEngine.close();
      await open.close();
      await strict.close();
      await storage.close();
      tmp.cleanup();
    },
  };
}

describe("addresses checked when the socket connects", () => {
  let modes: TwoModes;
  beforeAll(async () => {
    modes = await twoModes();
    const up = await call(modes.open, "POST", "/api/datasets", uploadBody(4, "tickets") as object);
    expect(up.statusCode).toBe(201);
  });
  afterAll(async () => modes.close());

  it("refuses a host name that resolves to a loopback address, in the check and in runs, before any request", async () => {
    const target = await reference();
    try {
      const port = new URL(target.url).port;
      const added = await call(modes.open, "POST", "/api/servers", server(`http://localhost:${port}`));
      expect(added.statusCode).toBe(201);
      const id = added.json().id as string;

      // without a token the name is allowed: the server answers
      expect((await call(modes.open, "POST", `/api/servers/${id}/check`)).json<CheckResult>().ok).toBe(true);
      const asked = target.requests.length;
      expect(asked).toBe(1);

      const check = (await call(modes.strict, "POST", `/api/servers/${id}/check`)).json<CheckResult>();
      expect(check.ok).toBe(false);
      expect(check.models).toBeNull();
      for (const said of [check.modelsError, check.probe.reason]) {
        expect(said).toMatch(
          /not connected: (127\.0\.0\.1|::1) \(what localhost resolves to\) is a loopback address/,
        );
        expect(said).toContain("--allow-private-servers");
      }

      const started = await call(modes.strict, "POST", "/api/runs", {
        dataset: "tickets",
        serverId: id,
        model: "lexical",
        splits: ["test", "calibration", "train"],
      });
      expect(started.statusCode).toBe(201);
      const runId = started.json<RunSummary>().id;
      await modes.strictEngine.settle(runId);
      const run = (await call(modes.strict, "GET", `/api/runs/${runId}`)).json<RunSummary>();
      expect(run.progress.answered + run.progress.unknown).toBe(0);
      expect(run.progress.escalated).toBeGreaterThan(0);
      expect(target.requests.length).toBe(asked);
    } finally {
      await target.close();
    }
  });

  it("refuses a stored loopback address in token mode: the check sends nothing and a run is a 400", async () => {
    const target = await reference();
    try {
      const added = await call(modes.open, "POST", "/api/servers", server(target.url));
      const id = added.json().id as string;
      const check = (await call(modes.strict, "POST", `/api/servers/${id}/check`)).json<CheckResult>();
      expect(check.ok).toBe(false);
      expect(check.probe.status).toBe("error");
      expect(check.probe.reason).toContain("127.0.0.1 is a loopback address (127.0.0.0/8)");
      expect(check.modelsError).toContain("--allow-private-servers");
      const started = await call(modes.strict, "POST", "/api/runs", {
        dataset: "tickets",
        serverId: id,
        model: "lexical",
      });
      expect(started.statusCode).toBe(400);
      expect(started.json().error.message).toContain("--allow-private-servers");
      expect(target.requests.length).toBe(0);
    } finally {
      await target.close();
    }
  });

  it("keeps the embedded reference server allowed in token mode, and its base URL fixed", async () => {
    const input = server(ref.url, { name: "reference (embedded)" });
    const row = serverRow("srv_embedded_test", input, `${ref.url}/v1/decision`, modes.secrets, true);
    await modes.storage.insertServer(row);
    const check = (await call(modes.strict, "POST", `/api/servers/${row.id}/check`)).json<CheckResult>();
    expect(check.ok).toBe(true);
    expect(check.models?.length).toBeGreaterThan(0);
    const moved = await call(modes.strict, "PATCH", `/api/servers/${row.id}`, {
      baseUrl: "http://127.0.0.1:6379",
    });
    expect(moved.statusCode).toBe(409);
    expect(moved.json().error.code).toBe("server_embedded");
  });
});

describe("redirects", () => {
  it("follows none: a 3xx names only the origin of its Location, and the target is never asked", async () => {
    const target = await internal((_req, res) => res.end("TARGET-BODY secret page"));
    const redirector = await internal((_req, res) => {
      res.writeHead(302, { location: `${target.url}/private/path?token=QUERY-SECRET` });
      res.end("REDIRECT-BODY internal");
    });
    try {
      const b = await bench();
      const added = await call(b.app, "POST", "/api/servers", server(redirector.url));
      const res = await call(b.app, "POST", `/api/servers/${added.json().id}/check`);
      const check = res.json<CheckResult>();
      expect(check.ok).toBe(false);
      expect(check.modelsError).toContain(`a redirect to ${target.url},`);
      expect(check.probe.status).toBe("error");
      expect(check.probe.reason).toContain(`HTTP 302 a redirect to ${target.url},`);
      for (const hidden of ["/private/path", "QUERY-SECRET", "TARGET-BODY", "REDIRECT-BODY"]) {
        expect(res.body).not.toContain(hidden);
      }
      expect([...redirector.hits].sort()).toEqual(["GET /v1/models", "POST /v1/decision"]);
      expect(target.hits).toEqual([]);
    } finally {
      await target.close();
      await redirector.close();
    }
  });
});

describe("remote text in a check", () => {
  it("quotes at most a short, sanitised snippet of an internal service's page", async () => {
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ");
    const page = `SECRET-INTERNAL-PAGE \u001b[31mred\u0007 api_key=sk-live-0123456789abcdefghij Bearer abcdefghijklmnop ${words}`;
    expect(page.length).toBeGreaterThan(10_000);
    const service = await internal((req, res) => {
      res.writeHead(req.method === "GET" ? 200 : 500, { "content-type": "text/html" });
      res.end(page);
    });
    try {
      const b = await bench();
      const added = await call(b.app, "POST", "/api/servers", server(service.url));
      const res = await call(b.app, "POST", `/api/servers/${added.json().id}/check`);
      const check = res.json<CheckResult>();
      expect(check.ok).toBe(false);
      expect(check.models).toBeNull();
      expect(check.modelsError).toContain("did not answer with JSON");
      expect(check.probe.reason).toContain("HTTP 500 SECRET-INTERNAL-PAGE");
      const quoted = res.body.match(/\bw\d+\b/g) ?? [];
      expect(quoted.length).toBeLessThan(40); // at most ~200 characters of the page
      expect(res.body.length).toBeLessThan(1500);
      for (const hidden of ["\\u001b", "\\u0007", "sk-live-0123456789abcdefghij", "abcdefghijklmnop"]) {
        expect(res.body).not.toContain(hidden);
      }
      expect(check.probe.reason).toContain("api_key=[redacted]");
    } finally {
      await service.close();
    }
  });

  it("bounds a model list from a service that answers a huge one", async () => {
    const service = await internal((req, res) => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            data: Array.from({ length: 5000 }, (_, i) => ({
              id: `m${i}`,
              description: `d\u0007 ${"x".repeat(5000)}`,
            })),
          }),
        );
      } else {
        res.writeHead(404).end();
      }
    });
    try {
      const b = await bench();
      const added = await call(b.app, "POST", "/api/servers", server(service.url));
      const res = await call(b.app, "POST", `/api/servers/${added.json().id}/check`);
      const models = res.json<CheckResult>().models ?? [];
      expect(models.length).toBe(200);
      expect(Math.max(...models.map((m) => m.description?.length ?? 0))).toBeLessThanOrEqual(200);
      expect(res.body).not.toContain("\\u0007");
      expect(res.body.length).toBeLessThan(60_000);
    } finally {
      await service.close();
    }
  });
});
