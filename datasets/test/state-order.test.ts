import { describe, expect, it } from "vitest";
import type { Example } from "../src/index.js";
import { datasetHash, isIndexKey, loadDataset, parseCsv, parseJsonl, reorderedJson } from "../src/index.js";
import { task } from "./fixtures.js";

const LABELS = `"labels": {"team": "billing"}`;

function parsed(result: ReturnType<typeof parseJsonl>): Example[] {
  if (!result.ok) throw new Error(result.message);
  return result.examples;
}

/** A seeded generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  "zeta",
  "2",
  "alpha",
  "10",
  "0",
  "01",
  "-1",
  "4294967294",
  "4294967295",
  "1.5",
  "é",
  'a"b',
  "9",
];

/**
 * A random JSON value written two ways, keys in the same (random) order: as a file might hold it (spaces, escapes,
 * numbers such as 1.0 or 1e2) and as JSON.stringify would write its value with that key order kept.
 */
function value(next: () => number, depth: number): { file: string; wire: string } {
  const r = next();
  if (depth > 0 && r < 0.3) {
    const keys = KEYS.filter(() => next() < 0.4).sort(() => next() - 0.5);
    const parts = keys.map((k) => ({ k, v: value(next, depth - 1) }));
    const sp = next() < 0.5 ? " " : "";
    return {
      file: `{${sp}${parts.map((p) => `${JSON.stringify(p.k)}${sp}:${sp}${p.v.file}`).join(`,${sp}\t`)}}`,
      wire: `{${parts.map((p) => `${JSON.stringify(p.k)}:${p.v.wire}`).join(",")}}`,
    };
  }
  if (depth > 0 && r < 0.45) {
    const items = Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth - 1));
    return {
      file: `[ ${items.map((v) => v.file).join(" , ")} ]`,
      wire: `[${items.map((v) => v.wire).join(",")}]`,
    };
  }
  if (r < 0.6) return { file: '"caf\\u00e9 \\"x\\" \\/ \\n"', wire: JSON.stringify('café "x" / \n') };
  if (r < 0.75) return { file: "1.0e2", wire: "100" };
  if (r < 0.85) return { file: "-0.50", wire: "-0.5" };
  return r < 0.95 ? { file: "true", wire: "true" } : { file: "null", wire: "null" };
}

describe("a state keeps its file's key order (stateJson)", () => {
  it("JSONL: integer-like keys stay where the line puts them, at every depth", () => {
    const [e] = parsed(
      parseJsonl(
        `{"id": "a", "state": {"zeta": 0, "2": "two", "alpha": "a0", "n": {"10": [1.0, "\\u00e9"], "9": null}}, ${LABELS}}`,
        task,
      ),
    );
    expect(Object.keys(e.state)).toEqual(["2", "zeta", "alpha", "n"]); // what JavaScript does to the object
    expect(e.stateJson).toBe('{"zeta":0,"2":"two","alpha":"a0","n":{"10":[1,"é"],"9":null}}');
    expect(JSON.parse(e.stateJson as string)).toEqual(e.state);
  });

  it("JSONL: no stateJson when the parsed state has the line's order (text, lists, other keys, JS order)", () => {
    const examples = parsed(
      parseJsonl(
        [
          `{"id": "s", "state": "{\\"zeta\\": 0, \\"2\\": 1}", ${LABELS}}`,
          `{"id": "o", "state": {"zeta": 0, "alpha": {"b": 1, "a": 2}}, ${LABELS}}`,
          `{"id": "j", "state": {"2": "two", "10": 1, "zeta": 0}, ${LABELS}}`,
          `{"id": "l", "state": [{"1": 0, "0": 1}], "meta": {"2": 0, "b": 1}, ${LABELS}}`,
        ].join("\n"),
        task,
      ),
    );
    expect(examples.map((e) => e.stateJson)).toEqual([undefined, undefined, undefined, '[{"1":0,"0":1}]']);
  });

  it("JSONL: a repeated key keeps its first place and its last value, as JSON.parse does", () => {
    const [e] = parsed(
      parseJsonl(
        `{"id": "r", "state": {"a": 1, "2": 2, "a": 3}, "state": {"b": 0, "1": 1}, ${LABELS}}`,
        task,
      ),
    );
    expect(e.state).toEqual({ 1: 1, b: 0 });
    expect(e.stateJson).toBe('{"b":0,"1":1}');
  });

  it("JSONL: 300 random states (seeded) come out as JSON.stringify's text in the file's key order", () => {
    const next = random(19);
    let reordered = 0;
    for (let trial = 0; trial < 300; trial++) {
      let v = value(next, 4);
      while (!v.wire.startsWith("{") || v.wire === "{}") v = value(next, 4);
      const meta = trial % 2 === 0 ? `"meta": {"s": "}]{[\\"", "n": [1, {"2": 0}]}, ` : "";
      const [e] = parsed(parseJsonl(`{"id": "x", ${meta}"state": ${v.file}, ${LABELS}}`, task));
      expect(JSON.parse(v.wire)).toEqual(e.state);
      expect(e.stateJson ?? JSON.stringify(e.state)).toBe(v.wire);
      if (e.stateJson !== undefined) reordered++;
    }
    expect(reordered).toBeGreaterThan(100);
  });

  it("JSONL: strings are written as JSON.stringify writes them (escapes, lone surrogates)", () => {
    const lone = "\ud800";
    const [e] = parsed(
      parseJsonl(
        `{"id": "u", "state": {"a": "${lone}\\u00e9\\ud83d\\ude00", "1": "\\u0001"}, ${LABELS}}`,
        task,
      ),
    );
    expect(e.stateJson).toBe(`{"a":${JSON.stringify(`${lone}é😀`)},"1":"\\u0001"}`);
    expect(e.stateJson).toContain("\\ud800");
  });

  it("CSV: state.<field> columns keep the column order; an empty cell leaves its key out", () => {
    const result = parseCsv(
      "id,state.zeta,state.2,state.alpha,team\na,0,two,a0,billing\nb,,two,a0,billing\nc,1,,,billing\n",
      task,
    );
    const examples = parsed(result);
    expect(examples.map((e) => e.stateJson)).toEqual([
      '{"zeta":0,"2":"two","alpha":"a0"}',
      undefined, // {"2", "alpha"}: JavaScript's order is the file's
      undefined,
    ]);
    expect(Object.keys(examples[0].state)).toEqual(["2", "zeta", "alpha"]);
  });

  it("isIndexKey says which keys JavaScript lists first", () => {
    for (const k of KEYS) {
      const obj: Record<string, number> = { z: 0 };
      obj[k] = 1;
      expect(isIndexKey(k), k).toBe(Object.keys(obj)[0] === k);
    }
  });

  it("reorderedJson gives stored text back only when the parsed state lost its order", () => {
    const text = '{"zeta":0,"2":"two"}';
    expect(reorderedJson(text, JSON.parse(text))).toBe(text);
    const js = '{"2":"two","zeta":0}';
    expect(reorderedJson(js, JSON.parse(js))).toBeUndefined();
    expect(reorderedJson('"{\\"2\\":0}"', '{"2":0}')).toBeUndefined();
  });
});

describe("the dataset hash reads the state in its file's order", () => {
  const line = (state: string) => `{"id": "a", "state": ${state}, ${LABELS}}`;

  it("unchanged for a file whose states JavaScript keeps in order (golden value from before stateJson)", () => {
    const examples = parsed(parseJsonl(line(`{"2": "two", "zeta": 0, "alpha": "a0"}`), task));
    expect(datasetHash(task, examples)).toBe(GOLDEN_JS_ORDER);
  });

  it("changes with the key order, integer-like keys included", () => {
    const file = parsed(parseJsonl(line(`{"zeta": 0, "2": "two", "alpha": "a0"}`), task));
    expect(datasetHash(task, file)).not.toBe(GOLDEN_JS_ORDER);
    const csv = parsed(parseCsv("id,state.zeta,state.2,state.alpha,team\na,0,two,a0,billing\n", task));
    expect(datasetHash(task, csv)).toBe(datasetHash(task, file));
  });

  it("bundled datasets with mapping states have no integer-like keys, so their order is their builders'", async () => {
    for (const name of ["penguins", "seattle-weather"]) {
      const d = await loadDataset(name);
      for (const e of d.examples) {
        expect(e.stateJson).toBeUndefined();
        if (typeof e.state === "object" && !Array.isArray(e.state))
          expect(Object.keys(e.state).some(isIndexKey)).toBe(false);
      }
    }
  });
});

/** datasetHash of that one-line file before stateJson existed (computed with the previous commit's code). */
const GOLDEN_JS_ORDER = "d5f3c63354073969559077df52c7dd7e4dbf3240e7822e1e4864f58dcfe40691";
