/**
 * Attacks on a listening workbench over real HTTP (raw request targets, forged Host and Origin headers): the
 * token decided on the route matched, the Host allow-list, the cross-site refusal and the security headers.
 */

import { request } from "node:http";
import { connect } from "node:net";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { syntheticTask } from "./fixtures.js";
import { listeningBench, type TestBench, testBench } from "./helpers.js";

const TOKEN = "a-very-long-team-token-123";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with the target sent exactly as given (no URL normalisation on the way). */
function raw(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const bearer = { authorization: `Bearer ${TOKEN}` };
const json = { "content-type": "application/json" };

function serverInput(name: string) {
  return JSON.stringify({ name, baseUrl: "https://decisions.example.com", models: ["m"] });
}

describe("token mode: access is decided on the route the router matched", () => {
  let bench: TestBench;
  let url: string;
  let plain: Answer;

  listeningBench({ token: TOKEN }, async (b, u) => {
    bench = b;
    url = u;
    const made = await raw(url, "POST", "/api/servers", { ...bearer, ...json }, serverInput("listed-server"));
    expect(made.status).toBe(201);
    plain = await raw(url, "GET", "/api/servers", bearer);
    expect(plain.status).toBe(200);
    expect(plain.body).toContain("listed-server");
  });

  // Variants of GET /api/servers: encoded, doubled slashes, dot segments, case, trailing characters.
  const sameRoute = [
    "/%61pi/servers",
    "/%61%70%69/%73ervers",
    "/api/%73ervers",
    "/api//servers",
    "//api/servers",
    "/api/./servers",
    "/api/x/../servers",
    "/api/%2e/servers",
    "/api/x/%2e%2e/servers",
    "/./api/servers",
    "/API/servers",
    "/Api/Servers",
    "/api/servers?",
    "/api/servers?token=" + TOKEN.slice(0, 4),
    "/api/servers#x",
  ];
  const otherPaths = [
    "/api/servers%20",
    "/api/servers;",
    "/api/servers%00",
    "/api%2fservers",
    "/%2561pi/servers",
    "/api/servers/..%2f..%2f",
    "/api",
    "/api/",
    "/api/nothing-here",
    "/docs",
    "/docs/json",
    "/DOCS/json",
    "/%64ocs/json",
  ];

  it.each([...sameRoute, ...otherPaths])(
    "%s without the token answers 401 and shows nothing",
    async (target) => {
      const res = await raw(url, "GET", target);
      expect(res.status).toBe(401);
      expect(res.body).not.toContain("listed-server");
      expect(JSON.parse(res.body).error.code).toBe("unauthorized");
    },
  );

  it.each(sameRoute)("%s with the token answers as /api/servers does", async (target) => {
    const res = await raw(url, "GET", target, bearer);
    expect(res.status).toBe(plain.status);
    expect(JSON.parse(res.body)).toEqual(JSON.parse(plain.body));
  });

  it("a POST through an encoded path without the token is refused and creates nothing", async () => {
    for (const target of ["/%61pi/servers", "/api//servers", "/api/./servers", "/API/servers"]) {
      const res = await raw(url, "POST", target, json, serverInput("smuggled"));
      expect(res.status, target).toBe(401);
    }
    expect((await bench.storage.listServers()).map((s) => s.name)).not.toContain("smuggled");
  });

  it("OpenAPI and /docs need the token; /health and the web shell's fallback do not", async () => {
    expect((await raw(url, "GET", "/docs/json", bearer)).status).toBe(200);
    expect((await raw(url, "GET", "/health")).status).toBe(200);
    expect(JSON.parse((await raw(url, "GET", "/health")).body)).toEqual({ ok: true });
  });

  it("takes the token from the query string only on a run's event stream", async () => {
    const res = await raw(url, "GET", `/api/servers?token=${TOKEN}`);
    expect(res.status).toBe(401);
    const runs = await raw(url, "GET", `/api/runs?token=${TOKEN}`);
    expect(runs.status).toBe(401);
    // On the event stream the query token is accepted: the run does not exist, so the route answers 404.
    const events = await raw(url, "GET", `/api/runs/run_missing/events?token=${TOKEN}`);
    expect(events.status).toBe(404);
    const wrong = await raw(url, "GET", "/api/runs/run_missing/events?token=wrong-token-wrong-token");
    expect(wrong.status).toBe(401);
  });

  it("compares the token in full: a prefix, a longer text or another case are refused", async () => {
    for (const t of [TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), ""]) {
      const res = await raw(url, "GET", "/api/servers", { authorization: `Bearer ${t}` });
      expect(res.status, t).toBe(401);
      expect(res.body).not.toContain(TOKEN);
    }
  });
});

describe("the event stream's query token is never logged", () => {
  it("logs the path without its query", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const { buildApp } = await import("../src/app.js");
    const bench = await testBench({ token: TOKEN });
    const app = await buildApp({
      storage: bench.storage,
      engine: bench.engine,
      secrets: bench.secrets,
      token: TOKEN,
      logger: { level: "info", stream },
    });
    try {
      await app.listen({ host: "127.0.0.1", port: 0 });
      const a = app.server.address();
      const base = `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
      await raw(base, "GET", `/api/runs/run_missing/events?token=${TOKEN}`);
      await raw(base, "GET", `/api/servers?token=${TOKEN}`);
      await raw(base, "GET", `/%61pi/runs/x/events?token=${TOKEN}`);
      expect(lines.join("")).toContain("/api/runs/run_missing/events");
      expect(lines.join("")).not.toContain(TOKEN);
    } finally {
      await app.close();
      await bench.close();
    }
  });
});

describe("the Host allow-list (DNS rebinding)", () => {
  let bench: TestBench;
  let url: string;

  listeningBench({ allowHosts: ["workbench.team.example"] }, (b, u) => {
    bench = b;
    url = u;
  });

  it.each([
    "evil.example",
    "evil.example:8710",
    "127.0.0.1.evil.example",
    "localhost.evil.example",
    "localhost.",
    "[::2]",
    "127.0.0.2",
  ])("a foreign Host %j answers 421 naming --allow-host, on every route", async (host) => {
    for (const target of ["/api/servers", "/api/runs", "/health", "/"]) {
      const res = await raw(url, "GET", target, { host });
      expect(res.status, target).toBe(421);
      const error = JSON.parse(res.body).error;
      expect(error.code).toBe("host_not_allowed");
      expect(error.message).toContain(`--allow-host ${host.replace(/:\d+$/, "")}`);
    }
    const post = await raw(url, "POST", "/api/servers", { host, ...json }, serverInput("rebound"));
    expect(post.status).toBe(421);
    expect((await bench.storage.listServers()).map((s) => s.name)).not.toContain("rebound");
  });

  it("a request without a Host header (HTTP/1.0) answers 421", async () => {
    const { hostname, port } = new URL(url);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.end("GET /api/servers HTTP/1.0\r\n\r\n"));
      let got = "";
      socket.on("data", (d) => {
        got += String(d);
      });
      socket.on("end", () => resolve(got));
      socket.on("error", reject);
    });
    expect(text.split("\r\n")[0]).toMatch(/^HTTP\/1\.[01] 421 /);
    expect(text).toContain("host_not_allowed");
  });

  it.each(["localhost", "127.0.0.1", "[::1]", "LOCALHOST:1234", "workbench.team.example"])(
    "Host %j is served",
    async (host) => {
      const res = await raw(url, "GET", "/api/servers", { host });
      expect(res.status).toBe(200);
    },
  );
});

describe("cross-site requests to state-changing routes", () => {
  let bench: TestBench;
  let url: string;
  let own: string;

  listeningBench({}, (b, u) => {
    bench = b;
    url = u;
    own = new URL(url).host;
  });

  async function names(): Promise<string[]> {
    return (await bench.storage.listServers()).map((s) => s.name);
  }

  it("refuses a cross-site HTML form post (urlencoded and text/plain)", async () => {
    const form = await raw(
      url,
      "POST",
      "/api/servers",
      { "content-type": "application/x-www-form-urlencoded", origin: "http://evil.example" },
      "name=form&baseUrl=https://x.example&models=m",
    );
    expect(form.status).toBe(403);
    expect(JSON.parse(form.body).error.code).toBe("cross_site_refused");
    const text = await raw(
      url,
      "POST",
      "/api/servers",
      { "content-type": "text/plain", origin: "http://evil.example" },
      serverInput("text-plain"),
    );
    expect(text.status).toBe(403);
    expect(await names()).not.toContain("text-plain");
  });

  it("refuses a cross-site multipart upload and stores nothing", async () => {
    const boundary = "----attack";
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="task"',
      "",
      JSON.stringify(syntheticTask("smuggled-upload")),
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="x.jsonl"',
      "",
      JSON.stringify({ id: "a", state: "text", split: "test", labels: {} }),
      `--${boundary}--`,
      "",
    ].join("\r\n");
    const type = `multipart/form-data; boundary=${boundary}`;
    const res = await raw(
      url,
      "POST",
      "/api/datasets",
      { "content-type": type, origin: "http://evil.example" },
      body,
    );
    expect(res.status).toBe(403);
    // A multipart post without the workbench header is a simple request too, even with no Origin.
    const bare = await raw(url, "POST", "/api/datasets", { "content-type": type }, body);
    expect(bare.status).toBe(403);
    expect(JSON.parse(bare.body).error.message).toContain("X-Workbench");
    expect(await bench.storage.getUpload("smuggled-upload")).toBeUndefined();
  });

  it("refuses bodiless POSTs without the workbench header (cancel, resume, replay, check)", async () => {
    for (const target of [
      "/api/runs/r1/cancel",
      "/api/runs/r1/resume",
      "/api/runs/r1/replay",
      "/api/servers/s1/check",
    ]) {
      const res = await raw(url, "POST", target);
      expect(res.status, target).toBe(403);
      const allowed = await raw(url, "POST", target, { "x-workbench": "1" });
      expect(allowed.status, target).toBe(404); // through the defence: the run or server does not exist
    }
  });

  it("refuses a foreign or null Origin even on a JSON request with the header", async () => {
    for (const origin of [
      "http://evil.example",
      "null",
      `http://${own}.evil.example`,
      "http://localhost:1",
    ]) {
      const res = await raw(
        url,
        "POST",
        "/api/servers",
        { ...json, "x-workbench": "1", origin },
        serverInput(origin),
      );
      expect(res.status, origin).toBe(403);
    }
    const del = await raw(url, "DELETE", "/api/servers/s1", {
      origin: "http://evil.example",
      "x-workbench": "1",
    });
    expect(del.status).toBe(403);
    expect(await names()).toEqual([]);
  });

  it("accepts the workbench's own origin and clients that send no Origin", async () => {
    const same = await raw(
      url,
      "POST",
      "/api/servers",
      { ...json, origin: `http://${own}` },
      serverInput("same-origin"),
    );
    expect(same.status).toBe(201);
    const cli = await raw(url, "POST", "/api/servers", json, serverInput("no-origin"));
    expect(cli.status).toBe(201);
    expect(await names()).toEqual(expect.arrayContaining(["same-origin", "no-origin"]));
  });

  it("reads of the API carry no CORS grant", async () => {
    const res = await raw(url, "GET", "/api/servers", { origin: "http://evil.example" });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await raw(url, "OPTIONS", "/api/servers", {
      origin: "http://evil.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "x-workbench",
    });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("security headers", () => {
  let url: string;

  listeningBench({ token: TOKEN }, (_b, u) => {
    url = u;
  });

  it.each([
    ["/health", {}],
    ["/api/servers", bearer],
    ["/api/servers", {}],
    ["/api/nothing", bearer],
  ] as const)("%s answers with CSP, no framing, nosniff and no referrer", async (target, headers) => {
    const res = await raw(url, "GET", target, { ...headers });
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
  });

  it("the API docs page keeps its own strict policy", async () => {
    const res = await raw(url, "GET", "/docs", bearer);
    expect(res.status).toBe(200);
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(res.headers["x-frame-options"]).toBe("DENY");
  });
});

describe("the names a workbench answers to", () => {
  it("bound to a wildcard address: loopback names, the machine's own addresses and --allow-host names", async () => {
    const { allowedHosts } = await import("../src/security/hosts.js");
    const { networkInterfaces } = await import("node:os");
    const own = Object.values(networkInterfaces())
      .flat()
      .map((a) => a?.address)
      .filter((a): a is string => typeof a === "string" && !a.includes(":"));
    const names = allowedHosts("0.0.0.0", ["Team.Example"]);
    for (const name of ["localhost", "127.0.0.1", "[::1]", "team.example", ...own])
      expect(names.has(name)).toBe(true);
    expect(names.has("0.0.0.0")).toBe(false);
    expect(names.has("evil.example")).toBe(false);
    const bound = allowedHosts("10.1.2.3");
    expect([...bound].sort()).toEqual(["10.1.2.3", "127.0.0.1", "[::1]", "localhost"]);
    expect(allowedHosts("fd00::1").has("[fd00::1]")).toBe(true);
  });

  it("--allow-host refuses a scheme, a port or a path", async () => {
    const { serveConfig } = await import("../src/config.js");
    expect(serveConfig({ "allow-host": ["wb.example.com", "10.0.0.7"] }, {}).allowHosts).toEqual([
      "wb.example.com",
      "10.0.0.7",
    ]);
    expect(serveConfig({}, { WORKBENCH_ALLOW_HOSTS: "a.example, b.example" }).allowHosts).toEqual([
      "a.example",
      "b.example",
    ]);
    for (const bad of ["http://wb.example.com", "wb.example.com:8710", "wb.example.com/x", "a b"]) {
      expect(() => serveConfig({ "allow-host": [bad] }, {}), bad).toThrow(/--allow-host/);
    }
  });
});
