import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkExposure, serveConfig } from "../src/config.js";
import { body, type TestBench, tempDir, testBench } from "./helpers.js";
import { readEvents } from "./sse.js";

const TOKEN = "token-0123456789abcdef";
const web = tempDir("wb-web-");
let bench: TestBench;
let url: string;

beforeAll(async () => {
  mkdirSync(join(web.dir, "assets"));
  writeFileSync(join(web.dir, "index.html"), "<!doctype html><title>workbench</title>");
  writeFileSync(join(web.dir, "assets", "app.js"), "console.log('app')");
  bench = await testBench({ token: TOKEN, webDir: web.dir });
  url = await bench.listen();
});

afterAll(async () => {
  await bench.close();
  web.cleanup();
});

const auth = { authorization: `Bearer ${TOKEN}` };

describe("the bearer token", () => {
  it("guards every /api route and lets the right token through", async () => {
    const none = await bench.app.inject({ method: "GET", url: "/api/datasets" });
    expect(none.statusCode).toBe(401);
    expect(body<{ error: { code: string } }>(none).error.code).toBe("unauthorized");
    const wrong = await bench.app.inject({
      method: "GET",
      url: "/api/servers",
      headers: { authorization: "Bearer x" },
    });
    expect(wrong.statusCode).toBe(401);
    expect(body<{ error: { message: string } }>(wrong).error.message).toContain("token is wrong");
    const unknownRoute = await bench.app.inject({ method: "GET", url: "/api/nothing-here" });
    expect(unknownRoute.statusCode).toBe(401);
    const ok = await bench.app.inject({ method: "GET", url: "/api/servers", headers: auth });
    expect(ok.statusCode).toBe(200);
  });

  it("takes the token as ?token= on event streams only (EventSource sends no headers)", async () => {
    const viaQuery = await bench.app.inject({ method: "GET", url: `/api/servers?token=${TOKEN}` });
    expect(viaQuery.statusCode).toBe(401);
    const events = await fetch(`${url}/api/runs/run_x/events?token=${TOKEN}`);
    expect(events.status).toBe(404);
    const denied = await readEvents(`${url}/api/runs/run_x/events?token=nope`);
    expect(denied.status).toBe(401);
  });

  it("leaves the web app and /health open; the API's documentation needs the token", async () => {
    expect((await bench.app.inject({ method: "GET", url: "/" })).statusCode).toBe(200);
    expect((await bench.app.inject({ method: "GET", url: "/runs/run_x" })).statusCode).toBe(200);
    expect((await bench.app.inject({ method: "GET", url: "/health" })).statusCode).toBe(200);
    expect((await bench.app.inject({ method: "GET", url: "/docs/json" })).statusCode).toBe(401);
    const docs = await bench.app.inject({ method: "GET", url: "/docs/json", headers: auth });
    expect(docs.statusCode).toBe(200);
  });
});

describe("the web app", () => {
  it("serves its files and falls back to index.html for client-side routes", async () => {
    const root = await bench.app.inject({ method: "GET", url: "/" });
    expect(root.body).toContain("<title>workbench</title>");
    const asset = await bench.app.inject({ method: "GET", url: "/assets/app.js" });
    expect(asset.body).toContain("console.log");
    const route = await bench.app.inject({ method: "GET", url: "/runs/run_abc?tab=report" });
    expect(route.statusCode).toBe(200);
    expect(route.headers["content-type"]).toContain("text/html");
    expect(route.body).toContain("<title>workbench</title>");
  });

  it("answers JSON 404 for a missing file and an unknown /api path", async () => {
    const missing = await bench.app.inject({ method: "GET", url: "/assets/missing.js" });
    expect(missing.statusCode).toBe(404);
    expect(body<{ error: { message: string } }>(missing).error.message).toContain(
      "no route GET /assets/missing.js",
    );
    const api = await bench.app.inject({ method: "GET", url: "/api/nothing-here", headers: auth });
    expect(api.statusCode).toBe(404);
    expect(body<{ error: { message: string } }>(api).error.message).toContain("/docs");
    const post = await bench.app.inject({ method: "POST", url: "/somewhere" });
    expect(post.statusCode).toBe(401);
    const allowed = { ...auth, "x-workbench": "1" };
    const authorised = await bench.app.inject({ method: "POST", url: "/somewhere", headers: allowed });
    expect(authorised.statusCode).toBe(404);
  });
});

describe("serve settings", () => {
  it("reads flags before environment, with defaults", () => {
    const c = serveConfig({}, { WORKBENCH_DATA_DIR: "/tmp/x", WORKBENCH_PORT: "9000" });
    expect(c).toMatchObject({
      dataDir: "/tmp/x",
      host: "127.0.0.1",
      port: 9000,
      token: null,
      reference: { enabled: true, port: 0 },
    });
    expect(serveConfig({ port: "0", "no-reference": true }, { WORKBENCH_PORT: "9000" })).toMatchObject({
      port: 0,
      reference: { enabled: false },
    });
    expect(serveConfig({}, {}).port).toBe(8710);
    expect(serveConfig({}, {}).dataDir).toMatch(/\.data\/workbench$/);
  });

  it("says what is wrong with a bad setting", () => {
    expect(() => checkExposure(serveConfig({ host: "0.0.0.0" }, {}), false)).toThrow(/needs a bearer token/);
    // a person's own token is enough to serve beyond 127.0.0.1
    expect(() => checkExposure(serveConfig({ host: "0.0.0.0" }, {}), true)).not.toThrow();
    expect(() => serveConfig({ token: "short" }, {})).toThrow(/at least 16 characters/);
    expect(() => serveConfig({ port: "70000" }, {})).toThrow(/port number from 0 to 65535/);
    expect(() => serveConfig({ "log-level": "loud" }, {})).toThrow(/log level must be one of/);
    expect(serveConfig({ host: "0.0.0.0", token: TOKEN }, {}).token).toBe(TOKEN);
  });
});
