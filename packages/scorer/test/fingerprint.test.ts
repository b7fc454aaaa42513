import { describe, expect, it } from "vitest";
import { DecisionScorer, decisionDecider } from "../src/index.js";

// Golden values: Python's hashlib.sha256(json.dumps(extra_body, sort_keys=True)) of release 0.7.1, kept
// here so that no later change can alter a fingerprint by accident. Made by test/fixtures/fingerprints.py.
const BASE = "http://127.0.0.1:8009";

describe("fingerprint", () => {
  it("is decision|endpoint|model without extra_body", () => {
    expect(new DecisionScorer(BASE, "jeeves-latest").fingerprint).toBe(
      "decision|http://127.0.0.1:8009/v1/decision|jeeves-latest",
    );
  });

  it("matches the golden values with extra_body", () => {
    const golden: [Record<string, unknown>, string][] = [
      [{ options: { max_think: 768, nothink_threshold: 0.9 } }, "0ead4d1844b04fbf"],
      [{ user: "team-a", provider: { order: ["x", "y"], allow_fallbacks: false } }, "515a525c3c89e81b"],
      [
        { t: 1e-7, u: 0.0001, v: 1e16, w: 123456789.125, é: "naïve ☃ 😀", n: null, list: [1, 2.5, "a\nb"] },
        "63a37c2fb99f3635",
      ],
    ];
    for (const [extraBody, digest] of golden) {
      expect(new DecisionScorer(BASE, "m", undefined, { extraBody }).fingerprint).toBe(
        `decision|http://127.0.0.1:8009/v1/decision|m|x:${digest}`,
      );
    }
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
