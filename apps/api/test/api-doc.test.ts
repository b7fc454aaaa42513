// API.md and the OpenAPI document are the contract clients are written against: every error code the routes can
// answer is listed in API.md, and every route has a response schema in the document.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as shapes from "../src/shapes/index.js";
import { type TestBench, testBench } from "./helpers.js";

const root = join(import.meta.dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("API.md", () => {
  it("lists every error code the sources can answer", () => {
    const codes = new Set<string>();
    for (const file of sources(join(root, "src"))) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/ApiError\(\s*\d{3},\s*"([a-z_]+)"/g)) codes.add(m[1]);
      for (const m of text.matchAll(/conflict\([^;]*?,\s*"([a-z_]+)"\s*\)/gs)) codes.add(m[1]);
      for (const m of text.matchAll(/\?\s*"([a-z_]+)"\s*:\s*"([a-z_]+)"/g)) {
        if (/nothing_learned|cannot_fit/.test(m[0])) codes.add(m[1]).add(m[2]);
      }
    }
    expect(codes.size).toBeGreaterThan(10);
    const doc = readFileSync(join(root, "API.md"), "utf8");
    const missing = [...codes].filter((c) => !doc.includes(`\`${c}\``));
    expect(missing).toEqual([]);
  });
});

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

describe("the OpenAPI document", () => {
  let bench: TestBench;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    bench = await testBench();
    const res = await bench.app.inject({ method: "GET", url: "/docs/json" });
    expect(res.statusCode).toBe(200);
    paths = (JSON.parse(res.body) as { paths: typeof paths }).paths;
  });
  afterAll(async () => bench?.close());

  /** "GET /api/x" of every operation whose success answer has no schema (204 has no body to describe). */
  function undescribed(): string[] {
    const out: string[] = [];
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const ok = Object.entries(op.responses ?? {}).filter(([code]) => /^2/.test(code));
        const described = ok.some(
          ([code, r]) => code === "204" || Object.values(r.content ?? {}).some((c) => c.schema !== undefined),
        );
        if (!described) out.push(`${method.toUpperCase()} ${path}`);
      }
    }
    return out;
  }

  it("gives every route a success response schema", () => {
    expect(Object.keys(paths).length).toBeGreaterThan(20);
    expect(undescribed()).toEqual([]);
  });

  it("describes the analysis payloads property by property, not as open objects", () => {
    const schemaOf = (path: string, method: string, code: string) =>
      JSON.stringify(paths[path][method].responses?.[code]?.content?.["application/json"]?.schema);
    for (const [path, method, code, field] of [
      ["/api/runs/{id}/report", "get", "200", "riskCoverage"],
      ["/api/runs/{id}/report.json", "get", "200", "perOption"],
      ["/api/runs/{id}/items", "get", "200", "probabilities"],
      ["/api/runs/{id}/calibrations", "post", "201", "candidates"],
      ["/api/runs/{id}/check", "post", "200", "answeredErrorInterval"],
      ["/api/compare", "get", "200", "flipped"],
    ] as const) {
      expect(schemaOf(path, method, code), `${method} ${path}`).toContain(`"${field}"`);
    }
  });
});

describe("the shapes", () => {
  it("say a union of distinct JSON types as a list of types, not anyOf (request bodies and strings aside)", () => {
    // the serializer picks an anyOf branch by validating the value, and compiles that validator on a route's first
    // answer (66 ms of a 1k run's first report); a list of types is told apart by typeof. Request bodies are
    // validated by ajv, compiled at start-up, and keep anyOf's error messages.
    const bodies = new Set(["FitRequest", "ServerInput", "ServerPatch"]);
    const found: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== "object") return;
      const anyOf = (node as { anyOf?: { type?: unknown }[] }).anyOf;
      if (Array.isArray(anyOf)) {
        const types = anyOf.map((s) => s.type);
        // a string beside an array or an object stays anyOf: the serializer's string branch takes arrays
        const stringLike = types.includes("string") && (types.includes("array") || types.includes("object"));
        const distinct = types.every((t) => typeof t === "string") && new Set(types).size === types.length;
        if (distinct && !stringLike) found.push(at);
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    for (const [name, schema] of Object.entries(shapes)) if (!bodies.has(name)) walk(schema, name);
    expect(Object.keys(shapes).length).toBeGreaterThan(30);
    expect(found).toEqual([]);
  });

  it("accept null and the value's types, and nothing else, where a value is nullable", () => {
    const ajv = new Ajv({ allowUnionTypes: true });
    const answer = ajv.compile(shapes.Nullable(shapes.Either([Type.String(), Type.Array(Type.String())])));
    const stop = ajv.compile(shapes.Nullable(shapes.StringEnum(["budget"])));
    const box = ajv.compile(shapes.Nullable(Type.Object({ a: Type.Number() })));
    expect([null, "x", ["x", "y"]].map((v) => answer(v))).toEqual([true, true, true]);
    expect([1, [1], {}].map((v) => answer(v))).toEqual([false, false, false]);
    expect([null, "budget", "time"].map((v) => stop(v))).toEqual([true, true, false]);
    expect([null, { a: 1 }, {}, { a: "1" }].map((v) => box(v))).toEqual([true, true, false, false]);
  });
});
