import { describe, expect, it } from "vitest";
import { CACHE_SIZE } from "../src/constants.js";
import type { Item, OpenerRequest } from "../src/index.js";
import { DecisionScorer, NOTHING_LEARNED, usableLogits, ValueError } from "../src/index.js";

describe("the answer cache is bounded", () => {
  it("asks the service again for a body pushed out of a full cache", async () => {
    const sent: OpenerRequest[] = [];
    const scorer = new DecisionScorer("http://127.0.0.1:9", "m", undefined, {
      opener: async (req) => {
        sent.push(req);
        return { status: 200, headers: {}, body: '{"answers":{"q0":{"noul":0.5}}}' };
      },
    });
    const item: Item = { name: "y", kind: "yesno", question: "Q?" };
    await scorer.score("state 0", [item]);
    await scorer.score("state 0", [item]);
    expect(sent).toHaveLength(1);
    for (let i = 1; i <= CACHE_SIZE; i++) await scorer.score(`state ${i}`, [item]);
    expect(sent).toHaveLength(CACHE_SIZE + 1);
    await scorer.score("state 0", [item]);
    expect(sent).toHaveLength(CACHE_SIZE + 2);
  });
});

describe("learning calls refuse placeholder output", () => {
  it("raises for an escalated output and passes the logits of an answered one", async () => {
    const scorer = new DecisionScorer("http://127.0.0.1:9", "m", undefined, {
      retries: 0,
      opener: async (req) =>
        req.body!.includes("fail")
          ? { status: 503, headers: {}, body: "down" }
          : { status: 200, headers: {}, body: '{"answers":{"q0":{"noul":0.8}}}' },
    });
    const item: Item = { name: "y", kind: "yesno", question: "Q?" };
    const [failed] = await scorer.score("fail", [item]);
    expect(() => usableLogits(failed)).toThrow(ValueError);
    expect(() => usableLogits(failed)).toThrow(NOTHING_LEARNED);
    const [ok] = await scorer.score("fine", [item]);
    expect(usableLogits(ok)).toEqual(ok.logits);
    expect(Math.exp(usableLogits(ok)[0])).toBeCloseTo(0.8, 12);
  });
});
