import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { pythonJson } from "../src/fingerprint.js";
import { DecisionScorer, decisionDecider } from "../src/index.js";

// Golden values made by the Python reference's own serialisation (test/fixtures/fingerprints.py):
// json.dumps(extra_body, sort_keys=True, ensure_ascii=False), hashed as UTF-8. The test reads the JSON only.
interface Case {
  extra_body: Record<string, unknown>;
  serialised: string;
  digest: string;
  ascii_digest: string;
}
const cases: Case[] = JSON.parse(
  readFileSync(new URL("./fixtures/fingerprints.json", import.meta.url), "utf8"),
).cases;
const BASE = "http://127.0.0.1:8009";

describe("fingerprint", () => {
  it("is decision|endpoint|model without extra_body", () => {
    expect(new DecisionScorer(BASE, "jeeves-latest").fingerprint).toBe(
      "decision|http://127.0.0.1:8009/v1/decision|jeeves-latest",
    );
  });

  it("hashes extra_body byte for byte as Python's json.dumps(sort_keys=True, ensure_ascii=False)", () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
    for (const c of cases) {
      const { return_reasoning: _, ...options } = (c.extra_body.options ?? {}) as Record<string, unknown>;
      const kept = { ...c.extra_body };
      if (c.extra_body.options !== undefined) {
        if (Object.keys(options).length) kept.options = options;
        else delete kept.options;
      }
      expect(pythonJson(kept)).toBe(c.serialised);
      expect(new DecisionScorer(BASE, "m", undefined, { extraBody: c.extra_body }).fingerprint).toBe(
        `decision|http://127.0.0.1:8009/v1/decision|m|x:${c.digest}`,
      );
    }
  });

  it("writes non-ASCII text as raw UTF-8, not as \\u escapes (which give another digest)", () => {
    const unicode = cases.filter((c) => /[\u0080-\uffff]/.test(c.serialised));
    expect(unicode.length).toBeGreaterThanOrEqual(6);
    for (const c of unicode) {
      expect(c.serialised).not.toMatch(/\\u(?!00[01])/);
      expect(c.digest).not.toBe(c.ascii_digest);
    }
    expect(pythonJson({ k: "é😀\u2028\u007f\u0001" })).toBe('{"k": "é😀\u2028\u007f\\u0001"}');
  });

  it("is not changed by return_reasoning", () => {
    const plain = new DecisionScorer(BASE, "m", undefined, { extraBody: { options: { max_think: 768 } } });
    const audited = new DecisionScorer(BASE, "m", undefined, {
      extraBody: { options: { max_think: 768, return_reasoning: true } },
    });
    expect(audited.fingerprint).toBe(plain.fingerprint);
    const only = new DecisionScorer(BASE, "m", undefined, {
      extraBody: { options: { return_reasoning: true } },
    });
    expect(only.fingerprint).toBe(new DecisionScorer(BASE, "m").fingerprint);
  });

  it("is unchanged by an empty extra_body", () => {
    expect(new DecisionScorer(BASE, "m", undefined, { extraBody: {} }).fingerprint).toBe(
      new DecisionScorer(BASE, "m").fingerprint,
    );
  });

  it("changes with the model, the endpoint and extra_body", () => {
    const prints = new Set([
      new DecisionScorer(BASE, "m").fingerprint,
      new DecisionScorer(BASE, "n").fingerprint,
      new DecisionScorer("http://127.0.0.1:8010", "m").fingerprint,
      new DecisionScorer(BASE, "m", undefined, { extraBody: { user: "a" } }).fingerprint,
      new DecisionScorer(BASE, "m", undefined, { extraBody: { user: "b" } }).fingerprint,
    ]);
    expect(prints.size).toBe(5);
  });

  it("never holds the key, credentials or the query", () => {
    const key = "sk-secret-key-123456";
    const d = decisionDecider(`https://user:pass@gw.example.com/api/?key=${key}`, "m", key);
    expect(d.fingerprint).toBe("decision|https://gw.example.com/api/v1/decision|m");
    expect(d.fingerprint).not.toContain(key);
    expect(d.endpoint).toBe("https://gw.example.com/api/v1/decision");
  });

  it("does not depend on the key", () => {
    expect(new DecisionScorer(BASE, "m", "k1-aaaa").fingerprint).toBe(
      new DecisionScorer(BASE, "m", "k2-bbbb").fingerprint,
    );
  });
});
