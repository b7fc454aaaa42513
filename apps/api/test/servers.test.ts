import { describe, expect, it } from "vitest";
import { addDataset, body, post, runToEnd, useServersFixture } from "./helpers.js";

const KEY = "sk-test-servers-0123456789";
const f = useServersFixture(KEY);

const error = (res: { body: string }) =>
  body<{ error: { code: string; message: string } }>(res as never).error;

describe("servers", () => {
  it("creates, lists, reads, patches and deletes a server; the key is write-only", async () => {
    const created = await post(f.bench.app, "/api/servers", {
      name: "mine",
      baseUrl: `${f.ref.url}/?tenant=a`,
      models: ["lexical"],
      apiKey: "sk-secret-1",
      timeout: 5,
    });
    expect(created.statusCode).toBe(201);
    const s = body<Record<string, unknown>>(created);
    expect(s).toMatchObject({
      name: "mine",
      baseUrl: f.ref.url,
      endpoint: `${f.ref.url}/v1/decision`,
      models: ["lexical"],
      hasApiKey: true,
      timeout: 5,
      retries: 2,
      backoff: 1,
      deterministic: false,
      embedded: false,
      extraBody: {},
    });
    expect(String(s.id)).toMatch(/^srv_/);
    expect(created.body).not.toContain("sk-secret-1");
    expect(created.body).not.toContain("tenant");

    const list = await f.bench.app.inject({ method: "GET", url: "/api/servers" });
    expect(body<unknown[]>(list).map((x) => (x as { id: string }).id)).toContain(s.id);

    const patched = await f.bench.app.inject({
      method: "PATCH",
      url: `/api/servers/${s.id}`,
      payload: { name: "renamed", apiKey: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(body(patched)).toMatchObject({ name: "renamed", hasApiKey: false, timeout: 5 });

    const kept = await f.bench.app.inject({
      method: "PATCH",
      url: `/api/servers/${s.id}`,
      payload: { retries: 0 },
    });
    expect(body(kept)).toMatchObject({ name: "renamed", retries: 0, hasApiKey: false, baseUrl: f.ref.url });

    const got = await f.bench.app.inject({ method: "GET", url: `/api/servers/${s.id}` });
    expect(body(got)).toMatchObject({ name: "renamed", retries: 0 });

    const del = await f.bench.app.inject({ method: "DELETE", url: `/api/servers/${s.id}` });
    expect(del.statusCode).toBe(204);
    const gone = await f.bench.app.inject({ method: "GET", url: `/api/servers/${s.id}` });
    expect(gone.statusCode).toBe(404);
    expect(error(gone).message).toContain(String(s.id));
  });

  it.each([
    [{ baseUrl: "http://x", models: ["m"] }, 'body is missing the required field "name"'],
    [{ name: "a", baseUrl: "ftp://x", models: ["m"] }, "base_url must use http:// or https://"],
    [{ name: "a", baseUrl: "not a url", models: ["m"] }, "is not a URL"],
    [{ name: "a", baseUrl: "http://x", models: [] }, "body.models must NOT have fewer than 1 items"],
    [{ name: "a", baseUrl: "http://x", models: ["m", "m"] }, 'lists "m" twice'],
    [{ name: "a", baseUrl: "http://x", models: ["m"], timeout: 0 }, "body.timeout must be > 0"],
    [{ name: "a", baseUrl: "http://x", models: ["m"], retries: 1.5 }, "body.retries must be an integer"],
    [{ name: "a", baseUrl: "http://x", models: ["m"], retries: "2" }, "body.retries must be an integer"],
    [{ name: "a", baseUrl: "http://x", models: ["m"], colour: "red" }, 'unknown field "colour"'],
    [{ name: "a", baseUrl: "http://x", models: ["m"], extraBody: { model: "x" } }, "model"],
    [
      { name: "a", baseUrl: "http://x", models: ["m"], extraBody: [] },
      "body.extraBody must be of type object",
    ],
    [{ name: "", baseUrl: "http://x", models: ["m"] }, "body.name must not be empty"],
  ])("refuses %j with a message saying what is wrong", async (payload, message) => {
    const res = await post(f.bench.app, "/api/servers", payload);
    expect(res.statusCode).toBe(400);
    expect(error(res).code).toBe("invalid_request");
    expect(error(res).message).toContain(message);
  });

  it("refuses extraBody holding the scorer's own fields with the scorer's message", async () => {
    const res = await post(f.bench.app, "/api/servers", {
      name: "a",
      baseUrl: "http://x",
      models: ["m"],
      extraBody: { questions: {} },
    });
    expect(res.statusCode).toBe(400);
    expect(error(res).message).toMatch(/extra_?body.*questions|questions.*extra_?body/i);
  });

  it("answers 404 for unknown servers on every server route", async () => {
    for (const [method, url] of [
      ["GET", "/api/servers/srv_nope"],
      ["PATCH", "/api/servers/srv_nope"],
      ["DELETE", "/api/servers/srv_nope"],
      ["POST", "/api/servers/srv_nope/check"],
    ] as const) {
      const res = await f.bench.app.inject({
        method,
        url,
        headers: { "x-workbench": "1" },
        ...(method === "PATCH" ? { payload: { name: "x" } } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(error(res).message).toContain('"srv_nope" does not exist');
    }
  });

  it("refuses an empty PATCH and a PATCH with a bad base URL", async () => {
    const id = body<{ id: string }>(
      await post(f.bench.app, "/api/servers", { name: "p", baseUrl: f.ref.url, models: ["lexical"] }),
    ).id;
    const empty = await f.bench.app.inject({ method: "PATCH", url: `/api/servers/${id}`, payload: {} });
    expect(empty.statusCode).toBe(400);
    expect(error(empty).message).toContain("must NOT have fewer than 1 properties");
    const bad = await f.bench.app.inject({
      method: "PATCH",
      url: `/api/servers/${id}`,
      payload: { baseUrl: "file:///etc" },
    });
    expect(bad.statusCode).toBe(400);
    expect(error(bad).message).toContain("http:// or https://");
  });

  it("check lists the models and answers a probe", async () => {
    const id = body<{ id: string }>(
      await post(f.bench.app, "/api/servers", { name: "c", baseUrl: f.ref.url, models: ["lexical"] }),
    ).id;
    const res = await post(f.bench.app, `/api/servers/${id}/check`);
    expect(res.statusCode).toBe(200);
    const check = body<{ ok: boolean; models: { name: string }[]; probe: Record<string, unknown> }>(res);
    expect(check.ok).toBe(true);
    expect(check.models.map((m) => m.name)).toContain("lexical");
    expect(check.probe.model).toBe("lexical");
    expect(["answered", "unknown"]).toContain(check.probe.status);
    expect(typeof check.probe.confidence).toBe("number");
  });

  it("check with the right key passes; with a wrong key it says so for the models and the probe", async () => {
    const good = body<{ id: string }>(
      await post(f.bench.app, "/api/servers", {
        name: "k",
        baseUrl: f.keyed.url,
        models: ["lexical"],
        apiKey: KEY,
      }),
    ).id;
    const ok = body<{ ok: boolean; models: unknown[] }>(
      await post(f.bench.app, `/api/servers/${good}/check`),
    );
    expect(ok.ok).toBe(true);
    expect(ok.models).not.toBeNull();

    const bad = body<{ id: string }>(
      await post(f.bench.app, "/api/servers", {
        name: "w",
        baseUrl: f.keyed.url,
        models: ["lexical"],
        apiKey: "sk-wrong-key",
      }),
    ).id;
    const res = await post(f.bench.app, `/api/servers/${bad}/check`);
    const check = body<{
      ok: boolean;
      models: null;
      modelsError: string;
      probe: { status: string; reason: string };
    }>(res);
    expect(check.ok).toBe(false);
    expect(check.models).toBeNull();
    expect(check.modelsError).toContain("HTTP 401");
    expect(check.probe.status).toBe("error");
    expect(check.probe.reason).toContain("401");
    expect(res.body).not.toContain("sk-wrong-key");
  });

  it("check against an address nobody listens on reports both failures", async () => {
    const id = body<{ id: string }>(
      await post(f.bench.app, "/api/servers", {
        name: "dead",
        baseUrl: "http://127.0.0.1:9",
        models: ["m"],
        retries: 0,
      }),
    ).id;
    const check = body<{ ok: boolean; modelsError: string; probe: { status: string; reason: string } }>(
      await post(f.bench.app, `/api/servers/${id}/check`),
    );
    expect(check.ok).toBe(false);
    expect(check.modelsError).toContain("/v1/models failed");
    expect(check.probe.status).toBe("escalated");
    expect(check.probe.reason).toContain("did not answer after 1 attempts");
  });

  it("refuses to delete a server that runs use, unless forced", async () => {
    const id = body<{ id: string }>(
      await post(f.bench.app, "/api/servers", {
        name: "used",
        baseUrl: f.ref.url,
        models: ["lexical"],
        backoff: 0,
      }),
    ).id;
    await addDataset(f.bench.app, 6, "servers-ds");
    const run = await runToEnd(f.bench, {
      dataset: "servers-ds",
      serverId: id,
      model: "lexical",
      concurrency: 2,
    });
    expect(run.status).toBe("done");
    const refused = await f.bench.app.inject({ method: "DELETE", url: `/api/servers/${id}` });
    expect(refused.statusCode).toBe(409);
    expect(error(refused).message).toContain("?force=true");
    const badForce = await f.bench.app.inject({ method: "DELETE", url: `/api/servers/${id}?force=maybe` });
    expect(badForce.statusCode).toBe(400);
    expect(error(badForce).message).toContain("querystring.force must be of type boolean");
    const forced = await f.bench.app.inject({ method: "DELETE", url: `/api/servers/${id}?force=true` });
    expect(forced.statusCode).toBe(204);
    const still = await f.bench.app.inject({ method: "GET", url: `/api/runs/${run.id}` });
    expect(body(still)).toMatchObject({ id: run.id, serverName: "used", status: "done" });
  });
});
