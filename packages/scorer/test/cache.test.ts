import { describe, expect, it } from "vitest";
import { LruCache } from "../src/cache.js";
import { CACHE_SIZE } from "../src/constants.js";
import type { Item, OpenerRequest } from "../src/index.js";
import { DecisionScorer, NOTHING_LEARNED, usableLogits, ValueError } from "../src/index.js";

describe("the answer cache is bounded", () => {
  it("forgets the least recently used entry first", () => {
    const cache = new LruCache<number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(1);
    expect(cache.get("c")).toBe(3);
    expect(cache.size).toBe(2);
  });

  it("evicts exactly as a list kept in order of use would, over many random uses", () => {
    const cache = new LruCache<number>(50);
    const model: [string, number][] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    for (let i = 0; i < 20_000; i++) {
      const key = `k${Math.floor(random() * 120)}`;
      const at = model.findIndex(([k]) => k === key);
      if (random() < 0.5) {
        expect(cache.get(key)).toBe(at === -1 ? undefined : model[at][1]);
        if (at !== -1) model.push(...model.splice(at, 1));
      } else {
        if (at !== -1) model.splice(at, 1);
        model.push([key, i]);
        if (model.length > 50) model.shift();
        cache.set(key, i);
      }
    }
    expect(cache.size).toBe(model.length);
  });

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
