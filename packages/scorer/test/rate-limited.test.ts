import { describe, expect, it } from "vitest";
import type { Item, Opener } from "../src/index.js";
import { DecisionScorer, undiciOpener } from "../src/index.js";
import { referenceServer } from "./helpers/server.js";

// The reference server as a rate-limited service (--rate-limit): real 429s with Retry-After / retry-after-ms.
const urgent: Item = { name: "urgent", kind: "yesno", question: "Is this message urgent?" };

/** An opener that records the status of every reply it sees. */
function counting() {
  const statuses: number[] = [];
  const opener: Opener = async (req) => {
    const res = await undiciOpener(req);
    statuses.push(res.status);
    return res;
  };
  return { statuses, opener };
}

describe("against a rate-limited reference server", () => {
  it("waits what a per-minute limit asks for instead of the shorter backoff, and answers", async () => {
    // 120 a minute, bursts of 1: a token every 0.5 s. Three asks at once: two are refused and told to wait
    // about 0.5 s, far longer than the backoff of 0.05 s; waiting that long, all three are answered with the
    // contract's two retries.
    const server = await referenceServer({
      checkpoints: false,
      rateLimit: { requests: 120, per: "minute", burst: 1 },
    });
    const { statuses, opener } = counting();
    const waits: number[] = [];
    const scorer = new DecisionScorer(server.url, "lexical", undefined, {
      backoff: 0.05,
      opener,
      sleep: (s) => {
        waits.push(s);
        return new Promise((r) => setTimeout(r, s * 1000));
      },
    });
    const outs = await Promise.all([0, 1, 2].map((k) => scorer.score(`message ${k}`, [urgent])));
    for (const [out] of outs) expect(out.escalate).toBeUndefined();
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    expect(server.rateLimited).toBe(statuses.filter((s) => s === 429).length);
    expect(Math.max(...waits)).toBeGreaterThan(0.3);
  });

  it("completes a concurrent run with answers when retries wait as told", async () => {
    const server = await referenceServer({
      checkpoints: false,
      rateLimit: { requests: 40, per: "second", burst: 4 },
    });
    const { statuses, opener } = counting();
    const scorer = new DecisionScorer(server.url, "lexical", undefined, {
      retries: 10,
      backoff: 0.02,
      opener,
    });
    let next = 0;
    let escalated = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 60) {
          const k = next++;
          const [out] = await scorer.score(`message ${k} about a late parcel`, [urgent]);
          if (out.escalate !== undefined) escalated++;
        }
      }),
    );
    expect(escalated).toBe(0);
    expect(statuses.filter((s) => s === 200).length).toBe(60);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});
