import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploadBody } from "./fixtures.js";
import { addServer, body, post, reference, runToEnd, type TestBench, testBench } from "./helpers.js";

let bench: TestBench;
let ref: DecisionServerHandle;
const ids: Record<string, string> = {};

beforeAll(async () => {
  bench = await testBench();
  ref = await reference();
  ids.server = await addServer(bench.app, ref.url);
  expect((await post(bench.app, "/api/datasets", uploadBody(12))).statusCode).toBe(201);
  ids.run = (
    await runToEnd(bench, { dataset: "tickets", serverId: ids.server, model: "lexical", limit: 2 })
  ).id;
  ids.dataset = "tickets";
});

afterAll(async () => {
  await bench.close();
  await ref.close();
});

/** mulberry32: a seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function nested(depth: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const HOSTILE: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  "",
  " ",
  "x".repeat(100_000),
  "\u0000\u0001\uffff",
  "💥🧨",
  "<script>alert(1)</script>",
  "' OR 1=1; DROP TABLE runs; --",
  "../../../etc/passwd",
  "NaN",
  "Infinity",
  [],
  [null],
  Array.from({ length: 5000 }, (_, i) => i),
  {},
  { __proto__: { polluted: 1 } },
  JSON.parse('{"__proto__": {"polluted": 1}}'),
  { constructor: { prototype: { polluted: 1 } } },
  nested(2000),
];

const VALID: Record<string, Record<string, unknown>> = {
  "/api/servers": { name: "f", baseUrl: "http://127.0.0.1:9", models: ["m"], retries: 0 },
  "/api/datasets": uploadBody(3, "fuzzed"),
  "/api/runs": { dataset: "tickets", serverId: "SERVER", model: "lexical", limit: 1, splits: ["test"] },
  "/api/runs/{id}/calibrations": { fitSplit: "calibration", evalSplit: "test" },
};

function pick<T>(r: () => number, xs: T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

function randomValue(r: () => number, depth = 0): unknown {
  const roll = r();
  if (roll < 0.5 || depth > 3) return pick(r, HOSTILE);
  if (roll < 0.75) {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < 1 + Math.floor(r() * 4); i++)
      o[pick(r, ["name", "id", "x", "models", "apiKey", "dataset", "split"])] = randomValue(r, depth + 1);
    return o;
  }
  return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
}

/** A body: random, or a valid one with one field broken, dropped or added. */
function randomBody(r: () => number, path: string): { payload?: string; contentType?: string } {
  const roll = r();
  const valid = VALID[path];
  if (valid && roll < 0.5) {
    const b: Record<string, unknown> = JSON.parse(JSON.stringify(valid).replace("SERVER", ids.server));
    const keys = Object.keys(b);
    const k = pick(r, keys);
    const how = r();
    if (how < 0.6) b[k] = randomValue(r);
    else if (how < 0.8) delete b[k];
    else b[pick(r, ["extra", "__proto__", "constructor"])] = randomValue(r);
    return { payload: JSON.stringify(b), contentType: "application/json" };
  }
  if (roll < 0.7) return { payload: JSON.stringify(randomValue(r)), contentType: "application/json" };
  const raws = ["{", "[1,2", '{"a":}', "nul", "\u0000\u0001", '{"a": 1}{"b": 2}', "", "{".repeat(5000)];
  if (roll < 0.85) return { payload: pick(r, raws), contentType: "application/json" };
  return {
    payload: pick(r, ["a=1&b=2", "<xml/>", "--x\r\nContent-Disposition: form-data\r\n\r\n", "plain"]),
    contentType: pick(r, [
      "text/plain",
      "application/xml",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
    ]),
  };
}

function randomQuery(r: () => number): string {
  if (r() < 0.5) return "";
  const keys = [
    "split",
    "offset",
    "limit",
    "q",
    "force",
    "item",
    "filter",
    "runs",
    "dataset",
    "status",
    "bins",
    "token",
  ];
  const parts = Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
    const v = pick(r, [
      "-1",
      "0",
      "abc",
      "1e9",
      "true",
      "test",
      "",
      "%00",
      "%F0%9F%92%A5",
      ids.run,
      `${ids.run},${ids.run}`,
    ]);
    return `${pick(r, keys)}=${v}`;
  });
  return `?${parts.join("&")}`;
}

describe("fuzzing every route with random and hostile input", () => {
  it("answers every request with a 2xx or a 4xx that says what is wrong, and the database stays intact", async () => {
    const spec = bench.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(spec.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => ({ method: m.toUpperCase(), path })),
    );
    expect(routes.length).toBeGreaterThan(20);
    const r = random(20261121);
    const failures: string[] = [];
    let sent = 0;
    for (let round = 0; round < 12; round++) {
      for (const route of routes) {
        const url =
          route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
            const real =
              name === "name" ? ids.dataset : route.path.includes("servers") ? ids.server : ids.run;
            return r() < 0.6 ? real : encodeURIComponent(String(pick(r, HOSTILE)).slice(0, 300)) || "x";
          }) + randomQuery(r);
        const { payload, contentType } =
          route.method === "GET" || route.method === "DELETE"
            ? { payload: undefined, contentType: undefined }
            : randomBody(r, route.path);
        let res: LightMyRequestResponse;
        try {
          res = await bench.app.inject({
            method: route.method as "GET",
            url,
            ...(payload !== undefined ? { payload } : {}),
            ...(contentType ? { headers: { "content-type": contentType } } : {}),
          });
        } catch (err) {
          failures.push(`${route.method} ${url}: threw ${(err as Error).message}`);
          continue;
        }
        sent++;
        if (res.statusCode >= 500)
          failures.push(
            `${route.method} ${url} ${payload?.slice(0, 120) ?? ""} -> ${res.statusCode} ${res.body.slice(0, 200)}`,
          );
        else if (res.statusCode >= 400) {
          const message = (() => {
            try {
              return body<{ error: { message: string } }>(res).error.message;
            } catch {
              return "";
            }
          })();
          if (!message || message.length < 10)
            failures.push(
              `${route.method} ${url} -> ${res.statusCode} without a message: ${res.body.slice(0, 200)}`,
            );
        }
      }
    }
    for (const id of bench.engine.activeRuns()) await bench.engine.settle(id);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await bench.storage.integrityCheck()).toBe("ok");
    const alive = await bench.app.inject({ method: "GET", url: `/api/runs/${ids.run}` });
    expect([200, 404]).toContain(alive.statusCode);
    expect((await bench.app.inject({ method: "GET", url: "/api/servers" })).statusCode).toBe(200);
  });
});
