import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import type { OpenerRequest } from "../src/index.js";
import { DecisionScorer, decisionDecider, ValueError } from "../src/index.js";

const BASE = "http://127.0.0.1:8009";

describe("constructor rules", () => {
  it("accepts http and https only", () => {
    expect(new DecisionScorer("https://gw.example.com", "m").endpoint).toBe(
      "https://gw.example.com/v1/decision",
    );
    for (const url of [
      "ftp://x.example.com",
      "file:///tmp/x",
      "ws://127.0.0.1:8009",
      "127.0.0.1:8009",
      "",
      "not a url",
    ]) {
      expect(() => new DecisionScorer(url, "m"), url).toThrow(ValueError);
    }
  });

  it("keeps a path prefix and the query on the request URL, and drops the query from the endpoint", async () => {
    const seen: OpenerRequest[] = [];
    const scorer = new DecisionScorer("http://127.0.0.1:9/prefix/?region=eu", "m", undefined, {
      opener: async (req) => {
        seen.push(req);
        return { status: 200, headers: {}, body: '{"answers":{"q0":{"noul":0.5}}}' };
      },
    });
    await scorer.score("s", [{ name: "y", kind: "yesno", question: "Q?" }]);
    expect(seen[0].url).toBe("http://127.0.0.1:9/prefix/v1/decision?region=eu");
    expect(scorer.endpoint).toBe("http://127.0.0.1:9/prefix/v1/decision");
  });

  it("uses the contract's defaults: timeout 30 s, 2 retries, backoff 1 s", async () => {
    const timeouts: number[] = [];
    const waits: number[] = [];
    const scorer = new DecisionScorer(BASE, "m", undefined, {
      opener: async (req) => {
        timeouts.push(req.timeout);
        return { status: 503, headers: {}, body: "busy" };
      },
      sleep: async (s) => {
        waits.push(s);
      },
    });
    await scorer.score("s", [{ name: "y", kind: "yesno", question: "Q?" }]);
    expect(timeouts).toEqual([30, 30, 30]);
    expect(waits).toEqual([1, 2]);
  });

  it("treats a missing maxLen as 512 and deterministic as false", () => {
    const d = decisionDecider(BASE, "m");
    expect(d.maxLen).toBe(512);
    expect(d.deterministic).toBe(false);
  });

  it("refuses extraBody fields model, state and questions", () => {
    for (const key of ["model", "state", "questions"]) {
      expect(() => new DecisionScorer(BASE, "m", undefined, { extraBody: { [key]: "x" } }), key).toThrow(
        new RegExp(`extraBody cannot set '${key}'`),
      );
    }
  });

  it("copies extraBody: later changes by the caller do not reach requests", async () => {
    const extraBody = { options: { max_think: 10 } };
    const bodies: string[] = [];
    const scorer = new DecisionScorer(BASE, "m", undefined, {
      extraBody,
      opener: async (req) => {
        bodies.push(req.body!);
        return { status: 200, headers: {}, body: '{"answers":{"q0":{"noul":0.5}}}' };
      },
    });
    const before = scorer.fingerprint;
    extraBody.options.max_think = 99;
    await scorer.score("s", [{ name: "y", kind: "yesno", question: "Q?" }]);
    expect(JSON.parse(bodies[0]).options).toEqual({ max_think: 10 });
    expect(scorer.fingerprint).toBe(before);
  });

  it("merges extraBody under the client's own fields, first in the body", async () => {
    const bodies: string[] = [];
    const scorer = new DecisionScorer(BASE, "m", undefined, {
      extraBody: { user: "u1", options: { think: false } },
      opener: async (req) => {
        bodies.push(req.body!);
        return { status: 200, headers: {}, body: '{"answers":{"q0":{"noul":0.5}}}' };
      },
    });
    await scorer.score({ b: 1, a: 2 }, [{ name: "y", kind: "yesno", question: "Q?" }]);
    const body = JSON.parse(bodies[0]);
    expect(Object.keys(body)).toEqual(["user", "options", "model", "state", "questions"]);
    expect(Object.keys(body.state)).toEqual(["b", "a"]);
  });

  const badOptions: [string, Record<string, unknown>][] = [
    ["a negative timeout", { timeout: -1 }],
    ["a zero timeout", { timeout: 0 }],
    ["fractional retries", { retries: 1.5 }],
    ["negative retries", { retries: -1 }],
    ["a negative backoff", { backoff: -0.5 }],
    ["a non-function opener", { opener: "undici" }],
    ["a non-function sleep", { sleep: 5 }],
    ["an array extraBody", { extraBody: [1] }],
    ["a misspelt option", { extra_body: {} }],
  ];
  for (const [what, options] of badOptions) {
    it(`refuses ${what}`, () => {
      expect(() => new DecisionScorer(BASE, "m", undefined, options)).toThrow(ValueError);
    });
  }

  it("takes options only after the key: an options object in the key's place is refused", () => {
    expect(() => new DecisionScorer(BASE, "m", { timeout: 5 } as unknown as string)).toThrow(
      /fourth argument/,
    );
  });

  it("refuses an empty model and an empty key", () => {
    expect(() => new DecisionScorer(BASE, "")).toThrow(ValueError);
    expect(() => new DecisionScorer(BASE, "m", "")).toThrow(ValueError);
  });

  it("refuses a bad maxLen or deterministic on the decider", () => {
    expect(() => decisionDecider(BASE, "m", undefined, { maxLen: 0 })).toThrow(ValueError);
    expect(() =>
      decisionDecider(BASE, "m", undefined, { deterministic: "yes" as unknown as boolean }),
    ).toThrow(ValueError);
  });

  it("never shows the key when the scorer is printed or serialised", () => {
    const key = "sk-live-0123456789abcdef";
    const scorer = new DecisionScorer(BASE, "m", key);
    expect(inspect(scorer, { depth: 10, showHidden: true })).not.toContain(key);
    expect(JSON.stringify(scorer)).not.toContain(key);
    expect(inspect(decisionDecider(BASE, "m", key), { depth: 10 })).not.toContain(key);
  });

  it("hides base-URL credentials and a key in the base URL from ValueError messages", () => {
    let message = "";
    try {
      new DecisionScorer("gopher://user:pw-9911@example.com/?key=sk-12345678", "m");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/http:\/\/ or https:\/\//);
    expect(message).not.toContain("sk-12345678");
    expect(message).not.toContain("pw-9911");
  });
});
