import { describe, expect, it } from "vitest";
import { addDataset, body, post, runToEnd, useServersFixture } from "./helpers.js";

const KEY = "sk-test-usage-0123456789";
const f = useServersFixture(KEY);

interface Check {
  ok: boolean;
  models: { name: string }[] | null;
  modelsError?: string;
  probe: { model: string; status: string; reason?: string };
}

describe("the runs of a server", () => {
  it("lists the runs that use a server, newest first, with their names, and none of other servers'", async () => {
    const add = async (name: string) =>
      body<{ id: string }>(
        await post(f.bench.app, "/api/servers", {
          name,
          baseUrl: f.ref.url,
          models: ["lexical"],
          backoff: 0,
        }),
      ).id;
    const used = await add("used-by-two");
    const other = await add("used-by-one");
    const unused = await add("used-by-none");
    await addDataset(f.bench.app, 4, "usage-ds");
    const first = await runToEnd(f.bench, { dataset: "usage-ds", serverId: used, model: "lexical" });
    const second = await runToEnd(f.bench, { dataset: "usage-ds", serverId: used, model: "lexical" });
    await runToEnd(f.bench, { dataset: "usage-ds", serverId: other, model: "lexical" });
    const renamed = await f.bench.app.inject({
      method: "PATCH",
      url: `/api/runs/${second.id}`,
      payload: { name: "after the swap" },
    });
    expect(renamed.statusCode).toBe(200);

    const res = await f.bench.app.inject({ method: "GET", url: `/api/servers/${used}/runs` });
    expect(res.statusCode).toBe(200);
    const answer = body<{ count: number; runs: { id: string; name: string | null }[] }>(res);
    expect(answer.count).toBe(2);
    expect(answer.runs.map((r) => r.id)).toEqual([second.id, first.id]);
    expect(answer.runs[0]).toMatchObject({
      name: "after the swap",
      dataset: "usage-ds",
      model: "lexical",
      status: "done",
    });
    expect(answer.runs[1].name).toBeNull();

    const none = body<{ count: number; runs: unknown[] }>(
      await f.bench.app.inject({ method: "GET", url: `/api/servers/${unused}/runs` }),
    );
    expect(none).toEqual({ count: 0, runs: [] });
    const missing = await f.bench.app.inject({ method: "GET", url: "/api/servers/srv_nope/runs" });
    expect(missing.statusCode).toBe(404);
  });
});

describe("the check of a server not saved yet", () => {
  it("lists the models and probes the first listed one when no model is given; nothing is stored", async () => {
    const before = body<unknown[]>(await f.bench.app.inject({ method: "GET", url: "/api/servers" })).length;
    const res = await post(f.bench.app, "/api/servers/check", { baseUrl: f.ref.url });
    expect(res.statusCode).toBe(200);
    const check = body<Check>(res);
    const names = (check.models ?? []).map((m) => m.name);
    expect(names).toContain("lexical");
    expect(check.probe.model).toBe(names[0]);
    expect(["answered", "unknown"]).toContain(check.probe.status);
    expect(check.ok).toBe(true);
    const after = body<unknown[]>(await f.bench.app.inject({ method: "GET", url: "/api/servers" })).length;
    expect(after).toBe(before);
  });

  it("probes the model given, and sends the key given without ever repeating it", async () => {
    const good = body<Check>(
      await post(f.bench.app, "/api/servers/check", {
        baseUrl: f.keyed.url,
        models: ["lexical"],
        apiKey: KEY,
      }),
    );
    expect(good.ok).toBe(true);
    expect(good.probe.model).toBe("lexical");
    expect(good.models).not.toBeNull();

    const wrong = await post(f.bench.app, "/api/servers/check", {
      baseUrl: f.keyed.url,
      models: ["lexical"],
      apiKey: "sk-wrong-usage-key",
    });
    const bad = body<Check>(wrong);
    expect(bad.ok).toBe(false);
    expect(bad.models).toBeNull();
    expect(bad.modelsError).toContain("HTTP 401");
    expect(wrong.body).not.toContain("sk-wrong-usage-key");
  });

  it("says no probe was sent when the server lists no model and none is given", async () => {
    const check = body<Check>(
      await post(f.bench.app, "/api/servers/check", { baseUrl: "http://127.0.0.1:9", retries: 0 }),
    );
    expect(check.ok).toBe(false);
    expect(check.models).toBeNull();
    expect(check.modelsError).toContain("/v1/models failed");
    expect(check.probe).toMatchObject({ status: "error", model: "" });
    expect(check.probe.reason).toContain("type a model name");
  });

  it("refuses a base URL that is not http(s) as adding a server does", async () => {
    const res = await post(f.bench.app, "/api/servers/check", { baseUrl: "ftp://example.com" });
    expect(res.statusCode).toBe(400);
    expect(body<{ error: { message: string } }>(res).error.message).toContain("http:// or https://");
  });
});
