/**
 * Re-pointing a server cannot carry what the workbench trusts to a new host: a stored API key is never sent to a
 * new origin unless given again, and the embedded reference server's base URL (and with it its loopback exemption
 * in token mode) cannot be changed. A listener on 127.0.0.1 records what reaches it.
 */

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/engine/engine.js";
import { checkServerInput, serverRow } from "../src/servers/view.js";
import { body, listeningBench, type TestBench } from "./helpers.js";

const KEY = "sk-live-VERYSECRETKEY1234567890";
let listener: Server;
let listenerUrl = "";
const received: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  listener = createServer((req, res) => {
    received.push(req.headers);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise((r) => listener.close(r)));

function patch(bench: TestBench, id: string, payload: Record<string, unknown>) {
  return bench.app.inject({ method: "PATCH", url: `/api/servers/${id}`, payload });
}
function check(bench: TestBench, id: string) {
  return bench.app.inject({
    method: "POST",
    url: `/api/servers/${id}/check`,
    headers: { "x-workbench": "1" },
  });
}

describe("a stored API key and a new base URL", () => {
  let bench: TestBench;
  listeningBench({}, (b) => {
    bench = b;
  });

  async function keyed(): Promise<string> {
    const res = await bench.app.inject({
      method: "POST",
      url: "/api/servers",
      payload: { name: "paid", baseUrl: "https://api.paid.example/v1", models: ["m"], apiKey: KEY },
    });
    expect(res.statusCode).toBe(201);
    return body<{ id: string }>(res).id;
  }

  it("refuses a new origin without the key, and sends the old key nowhere", async () => {
    const id = await keyed();
    const res = await patch(bench, id, { baseUrl: `${listenerUrl}/plain` });
    expect(res.statusCode).toBe(400);
    expect(body<{ error: { message: string } }>(res).error.message).toContain("body.apiKey");
    expect(res.body).not.toContain(KEY);
    received.length = 0;
    await check(bench, id); // still the old URL, which cannot be reached here
    expect(received).toEqual([]);
  });

  it("keeps the key on the same origin, takes a new key or none with a new origin", async () => {
    const id = await keyed();
    expect((await patch(bench, id, { baseUrl: "https://api.paid.example/v2" })).statusCode).toBe(200);
    expect(
      (await patch(bench, id, { baseUrl: listenerUrl, apiKey: "sk-new-key-for-the-new-host" })).statusCode,
    ).toBe(200);
    received.length = 0;
    await check(bench, id);
    expect(received.length).toBeGreaterThan(0);
    expect(received.map((h) => h.authorization)).toContain("Bearer sk-new-key-for-the-new-host");
    expect(JSON.stringify(received)).not.toContain(KEY);

    const other = await keyed();
    expect((await patch(bench, other, { baseUrl: listenerUrl, apiKey: null })).statusCode).toBe(200);
    received.length = 0;
    await check(bench, other);
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((h) => h.authorization === undefined)).toBe(true);
  });
});

describe("the embedded reference server in token mode", () => {
  let bench: TestBench;
  listeningBench({ token: "team-token-0123456789abc" }, (b) => {
    bench = b;
  });
  const auth = { authorization: "Bearer team-token-0123456789abc" };

  it("keeps its base URL: a PATCH of it is refused, so its loopback exemption cannot be moved", async () => {
    const input = {
      name: "Reference server (embedded)",
      baseUrl: "http://127.0.0.1:9/",
      models: ["lexical"],
    };
    const row = serverRow(newId("srv"), input, checkServerInput(input), bench.secrets, true);
    await bench.storage.insertServer(row);
    // `localhost` passes the text check of a new base URL; only the connect-time check would see loopback.
    const res = await bench.app.inject({
      method: "PATCH",
      url: `/api/servers/${row.id}`,
      headers: auth,
      payload: { baseUrl: `${listenerUrl.replace("127.0.0.1", "localhost")}/v1` },
    });
    expect(res.statusCode).toBe(409);
    expect(body<{ error: { code: string } }>(res).error.code).toBe("server_embedded");
    received.length = 0;
    await bench.app.inject({
      method: "POST",
      url: `/api/servers/${row.id}/check`,
      headers: { ...auth, "x-workbench": "1" },
    });
    expect(received).toEqual([]);
    const renamed = await bench.app.inject({
      method: "PATCH",
      url: `/api/servers/${row.id}`,
      headers: auth,
      payload: { name: "Reference (ours)" },
    });
    expect(renamed.statusCode).toBe(200);
  });
});
