import { describe, expect, it } from "vitest";
import { DecisionScorer } from "../src/index.js";
import { retryAfterSeconds } from "../src/retryAfter.js";
import { urgent } from "./helpers/items.js";
import { scripted, yes } from "./helpers/scripted.js";
import { recordingSleep, referenceServer } from "./helpers/server.js";

/** A reference server whose first `times` requests answer `status` with `headers`; a scorer recording waits. */
async function limited(status: number, headers: Record<string, string>, times = 2, options = {}) {
  const server = await referenceServer({
    faults: {
      rules: [
        { on: Array.from({ length: times }, (_, i) => i + 1), fault: { kind: "status", status, headers } },
      ],
    },
    checkpoints: false,
  });
  const { waits, sleep } = recordingSleep();
  const scorer = new DecisionScorer(server.url, "lexical", undefined, { sleep, ...options });
  return { server, scorer, waits };
}

describe("Retry-After and retry-after-ms on 429 and 503", () => {
  for (const status of [429, 503]) {
    it(`waits a ${status}'s Retry-After seconds when longer than the backoff, then answers`, async () => {
      const { server, scorer, waits } = await limited(status, { "retry-after": "7" });
      const [out] = await scorer.score("parcel lost today", [urgent]);
      expect(out.escalate).toBeUndefined();
      expect(server.requests.length).toBe(3);
      expect(waits).toEqual([7, 7]);
    });
  }

  it("keeps the backoff when Retry-After is shorter", async () => {
    const { scorer, waits } = await limited(429, { "retry-after": "1" }, 2, { backoff: 1.5 });
    await scorer.score("x", [urgent]);
    expect(waits).toEqual([1.5, 3]);
  });

  it("reads retry-after-ms before Retry-After", async () => {
    const { scorer, waits } = await limited(429, { "retry-after-ms": "2500", "retry-after": "9" });
    await scorer.score("x", [urgent]);
    expect(waits).toEqual([2.5, 2.5]);
  });

  it("caps the wait at maxRetryWait (60 s by default)", async () => {
    const a = await limited(429, { "retry-after": "600" });
    await a.scorer.score("x", [urgent]);
    expect(a.waits).toEqual([60, 60]);
    const b = await limited(503, { "retry-after-ms": "90000" }, 2, { maxRetryWait: 5 });
    await b.scorer.score("x", [urgent]);
    expect(b.waits).toEqual([5, 5]);
  });

  it("reads an HTTP date as its distance from now", async () => {
    const server = await scripted((n) =>
      n < 2
        ? {
            status: 429,
            headers: { "retry-after": new Date(Date.now() + 30_000).toUTCString() },
            body: { detail: "slow down" },
          }
        : { body: yes(0.8) },
    );
    const { waits, sleep } = recordingSleep();
    const [out] = await new DecisionScorer(server.url, "m", undefined, { sleep }).score("x", [urgent]);
    expect(out.escalate).toBeUndefined();
    expect(waits).toHaveLength(2);
    // An HTTP date has whole seconds: the wait is within one second under 30 s.
    for (const w of waits) expect(w > 28 && w <= 30).toBe(true);
  });

  it("ignores Retry-After on other retried statuses and escalates after the contract's attempts", async () => {
    const { scorer, waits } = await limited(500, { "retry-after": "30" }, 3);
    const [out] = await scorer.score("x", [urgent]);
    expect(waits).toEqual([1, 2]);
    expect(out.escalate).toMatch(/^the decision service did not answer after 3 attempts: HTTP 500/);
  });

  it("parses the header forms and refuses nonsense", () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(retryAfterSeconds({ "retry-after": "120" }, now)).toBe(120);
    expect(retryAfterSeconds({ "retry-after": "0.5" }, now)).toBe(0.5);
    expect(retryAfterSeconds({ "retry-after": "Wed, 21 Oct 2026 07:28:45 GMT" }, now)).toBe(45);
    expect(retryAfterSeconds({ "retry-after": "Wed, 21 Oct 2026 07:27:00 GMT" }, now)).toBe(0);
    expect(retryAfterSeconds({ "retry-after-ms": "1500", "retry-after": "120" }, now)).toBe(1.5);
    expect(retryAfterSeconds({ "retry-after-ms": "soon", "retry-after": "3" }, now)).toBe(3);
    expect(retryAfterSeconds({ "retry-after": "-5" }, now)).toBeUndefined();
    expect(retryAfterSeconds({ "retry-after": "later" }, now)).toBeUndefined();
    expect(retryAfterSeconds({}, now)).toBeUndefined();
  });
});

describe("full jitter", () => {
  it("is off by default: the waits are exactly backoff * 2^k", async () => {
    const { scorer, waits } = await limited(503, {}, 2);
    await scorer.score("x", [urgent]);
    expect(waits).toEqual([1, 2]);
  });

  it("draws each wait from [0, backoff * 2^k] and keeps Retry-After as the floor", async () => {
    const server = await scripted((n) => (n % 3 === 2 ? { body: yes(0.5) } : { status: 503 }));
    const { waits, sleep } = recordingSleep();
    const scorer = new DecisionScorer(server.url, "m", undefined, { sleep, jitter: true, backoff: 2 });
    for (let k = 0; k < 40; k++) await scorer.score(`state ${k}`, [urgent]);
    expect(waits).toHaveLength(80);
    const first = waits.filter((_, i) => i % 2 === 0);
    const second = waits.filter((_, i) => i % 2 === 1);
    for (const w of first) expect(w >= 0 && w <= 2).toBe(true);
    for (const w of second) expect(w >= 0 && w <= 4).toBe(true);
    expect(new Set(waits).size).toBeGreaterThan(70);
    const floor = await limited(429, { "retry-after": "3" }, 2, { jitter: true });
    await floor.scorer.score("x", [urgent]);
    expect(floor.waits).toEqual([3, 3]);
  });

  it("refuses bad option values with what is right", () => {
    expect(() => new DecisionScorer("http://127.0.0.1:9", "m", undefined, { maxRetryWait: -1 })).toThrow(
      /maxRetryWait must be a non-negative number of seconds/,
    );
    expect(
      () => new DecisionScorer("http://127.0.0.1:9", "m", undefined, { jitter: "yes" as unknown as boolean }),
    ).toThrow(/jitter must be true or false/);
  });
});
