import { lookup as dnsLookup } from "node:dns";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError, undiciOpener, undiciOpenerWith } from "../src/index.js";

/** Replies by path; records the path and body of each request. */
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/split": (_req, res) => {
    // "é" is two bytes in UTF-8: the first chunk ends in the middle of it.
    const bytes = Buffer.from('{"text":"caf\u00e9 \u{1f600}"}');
    res.setHeader("content-type", "application/json");
    res.write(bytes.subarray(0, 12));
    setTimeout(() => res.end(bytes.subarray(12)), 20);
  },
  "/bom": (_req, res) => {
    res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]));
  },
  "/invalid": (_req, res) => {
    res.end(Buffer.from([0x7b, 0xff, 0x7d]));
  },
  "/informational": (_req, res) => {
    res.writeProcessing();
    res.setHeader("set-cookie", ["a=1", "b=2"]);
    res.setHeader("x-Mixed-Case", "yes");
    res.statusCode = 201;
    res.end("created");
  },
  "/redirect": (_req, res) => {
    res.writeHead(302, { location: "http://127.0.0.1:9/elsewhere" });
    res.end("moved");
  },
  "/stall": (_req, res) => {
    res.writeHead(200, { "content-length": "100" });
    res.write("{");
  },
  "/truncate": (req, res) => {
    res.writeHead(200, { "content-length": "100" });
    res.write("{", () => req.socket.destroy());
  },
};
const seen: { url: string; body: string }[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    seen.push({ url: req.url!, body: Buffer.concat(chunks).toString() });
    (routes[req.url!.split("?")[0]] ?? ((_q, r) => r.end("ok")))(req, res);
  });
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string, timeout = 5) =>
  undiciOpener({
    url: base + path,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"q":"\u00e9"}',
    timeout,
  });

describe("the default opener", () => {
  it("sends the body to the path with its query, and decodes a reply whose characters span chunks", async () => {
    const res = await post("/split?key=1&x=2");
    expect(seen.at(-1)).toEqual({ url: "/split?key=1&x=2", body: '{"q":"\u00e9"}' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('{"text":"caf\u00e9 \u{1f600}"}');
    expect(res.headers["content-type"]).toBe("application/json");
  });

  it("drops a leading UTF-8 byte order mark and replaces invalid bytes", async () => {
    expect((await post("/bom")).body).toBe('{"a":1}');
    expect((await post("/invalid")).body).toBe("{\ufffd}");
  });

  it("skips an informational reply and gives the final status with lower-case headers", async () => {
    const res = await post("/informational");
    expect(res.status).toBe(201);
    expect(res.body).toBe("created");
    expect(res.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(res.headers["x-mixed-case"]).toBe("yes");
  });

  it("times out a body that stops between chunks", async () => {
    const error = await post("/stall", 0.2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: "timeout", message: "timed out after 0.2 s" });
  });

  it("calls a reply cut short after its headers an incomplete read", async () => {
    const error = await post("/truncate").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe("incomplete read");
    expect((error as NetworkError).message).toMatch(/^incomplete read: the reply was cut short \(/);
  });

  it("rejects a URL it cannot parse with a network error, never throwing", async () => {
    const pending = undiciOpener({ url: "not a url", method: "POST", headers: {}, body: "", timeout: 1 });
    await expect(pending).rejects.toMatchObject({ name: "NetworkError", code: "network" });
  });
});

describe("undiciOpenerWith", () => {
  it("resolves host names through its lookup on every connection, and follows no redirect", async () => {
    const looked: string[] = [];
    const lookup: LookupFunction = (hostname, options, callback) => {
      looked.push(hostname);
      dnsLookup(hostname, options, callback);
    };
    const open = undiciOpenerWith({ lookup });
    const url = base.replace("127.0.0.1", "localhost");
    const res = await open({ url: `${url}/redirect`, method: "GET", headers: {}, timeout: 5 });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("http://127.0.0.1:9/elsewhere");
    expect(res.body).toBe("moved");
    expect(looked).toEqual(["localhost"]);
  });

  it("fails the request when its lookup refuses, with the lookup's error as the cause", async () => {
    const refusal = Object.assign(new Error("that address is refused"), { code: "EREFUSED_HERE" });
    const lookup: LookupFunction = (_hostname, options, callback) =>
      (callback as (e: Error, a: string | [], f?: number) => void)(refusal, options.all ? [] : "", 0);
    const open = undiciOpenerWith({ lookup });
    const url = base.replace("127.0.0.1", "localhost");
    const error = await open({ url: `${url}/bom`, method: "GET", headers: {}, timeout: 5 }).catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe("network");
    expect((error as NetworkError).cause).toBe(refusal);
    expect(seen.some((s) => s.url === "/bom" && s.body === "")).toBe(false);
  });
});
