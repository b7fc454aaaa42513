/** The rate lane's arithmetic on a hand-driven clock, the token estimate and the 429 wait header. */

import { describe, expect, it, vi } from "vitest";
import { DebtBucket, RateLane, RateLanes } from "../src/engine/rate-lane.js";
import { laneOpener, retryAfter, ticketSignal } from "../src/engine/rate-opener.js";
import { itemTokens, requestTokens } from "../src/engine/rate-tokens.js";

function clock() {
  const c = { t: 1000, now: () => c.t };
  return c;
}

describe("DebtBucket", () => {
  it("lets a full bucket go at once, then spaces takers by the rate", () => {
    const b = new DebtBucket(10, 2, 0); // 10 a second, holds 2
    expect(b.take(1, 0)).toBe(0);
    expect(b.take(1, 0)).toBe(0);
    expect(b.take(1, 0)).toBeCloseTo(100);
    expect(b.take(1, 0)).toBeCloseTo(200);
    // 250 ms later: 2.5 tokens came back, the debt of 2 is paid, 0.5 left
    expect(b.take(1, 250)).toBeCloseTo(300);
  });

  it("a request larger than the bucket waits out its debt; give corrects it", () => {
    const b = new DebtBucket(100, 100, 0);
    expect(b.take(300, 0)).toBeCloseTo(2000);
    b.give(200, 0); // the reply said 100 tokens, not 300
    expect(b.take(1, 0)).toBeCloseTo(10);
  });

  it("drain keeps a paused bucket empty until the pause ends", () => {
    const b = new DebtBucket(10, 5, 0);
    b.drain(3000);
    expect(b.take(1, 3000)).toBeCloseTo(3100);
  });
});

describe("RateLane", () => {
  it("paces requests to requests a minute and input tokens a minute, whichever is slower", () => {
    const c = clock();
    const lane = new RateLane("srv", { requestsPerMinute: 600, inputTokensPerMinute: 6000 }, c.now);
    // 10 requests a second (holds 10), 100 tokens a second (holds 100)
    const at: number[] = [];
    for (let i = 0; i < 20; i++) at.push(lane.reserve(50));
    expect(at[0]).toBe(1000);
    expect(at[1]).toBe(1000);
    // tokens are the bottleneck: 50 tokens each at 100 a second is one request every 500 ms
    expect(at[2]).toBeCloseTo(1500);
    expect(at[19] - at[18]).toBeCloseTo(500);
  });

  it("a 429 pauses the whole lane for its Retry-After; requests reserved before wait too", () => {
    const c = clock();
    const lane = new RateLane("srv", { requestsPerMinute: null, inputTokensPerMinute: null }, c.now);
    const before = lane.reserve(0);
    expect(lane.secondsLeft(before)).toBe(0);
    expect(lane.pause(7)).toBe(7);
    expect(lane.secondsLeft(before)).toBe(7);
    expect(lane.reserve(0)).toBe(8000);
    c.t = 5000;
    expect(lane.secondsLeft(before)).toBe(3);
  });

  it("a 429 without Retry-After pauses 1 s, 2 s, 4 s ... until a request is answered; a cap holds", () => {
    const c = clock();
    const lane = new RateLane("srv", { requestsPerMinute: null, inputTokensPerMinute: null }, c.now);
    expect([lane.pause(undefined), lane.pause(undefined), lane.pause(undefined)]).toEqual([1, 2, 4]);
    lane.answered();
    expect(lane.pause(undefined)).toBe(1);
    expect(lane.pause(600, 60)).toBe(60);
    lane.answered();
    expect([lane.pause(undefined, 60, 0.01), lane.pause(undefined, 60, 0.01)]).toEqual([0.01, 0.02]);
    expect(lane.limited).toBe(7);
  });

  it("learns a spacing from 429s: their wait, doubled by a fresh one, shrunk 1 % per answer", () => {
    const c = clock();
    const lane = new RateLane("srv", { requestsPerMinute: null, inputTokensPerMinute: null }, c.now);
    expect(lane.learnedRate).toBeNull();
    lane.pause(0.02); // paused until 1020, requests 20 ms apart from then on
    expect(lane.learnedRate).toBeCloseTo(50);
    expect([lane.reserve(0), lane.reserve(0), lane.reserve(0)]).toEqual([1020, 1040, 1060]);
    lane.pause(0.02); // sent before the pause ended: nothing new learned
    expect(lane.learnedRate).toBeCloseTo(50);
    c.t = 2000;
    lane.pause(0.02); // a fresh 429: the rate halves
    expect(lane.learnedRate).toBeCloseTo(25);
    lane.answered();
    expect(lane.learnedRate).toBeCloseTo(25.25);
  });

  it("requests waiting through a pause go one slot apart after it, not all at its end", async () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const lane = new RateLane("srv", { requestsPerMinute: null, inputTokensPerMinute: null }, () =>
        Date.now(),
      );
      lane.pause(0.03); // until 30, then 30 ms apart
      const went: number[] = [];
      const waits = [lane.reserve(0), lane.reserve(0), lane.reserve(0)].map((at) =>
        lane.wait(at).then(() => went.push(Date.now())),
      );
      await vi.advanceTimersByTimeAsync(10);
      lane.pause(0.1); // sent before the first pause ended: the spacing stays, the lane waits until 110
      await vi.advanceTimersByTimeAsync(400);
      await Promise.all(waits);
      went.sort((x, y) => x - y);
      expect(went[0]).toBeGreaterThanOrEqual(110);
      expect(went[1] - went[0]).toBeGreaterThanOrEqual(30);
      expect(went[2] - went[1]).toBeGreaterThanOrEqual(30);
      expect(lane.sent).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it("is free only with no limit, no spacing learned and no pause", () => {
    const c = clock();
    const lane = new RateLane("srv", { requestsPerMinute: null, inputTokensPerMinute: null }, c.now);
    expect(lane.free).toBe(true);
    lane.pause(2);
    expect(lane.free).toBe(false);
    c.t += 3000;
    expect(lane.free).toBe(false); // a spacing was learned from the 429
    expect(new RateLane("srv", { requestsPerMinute: 60, inputTokensPerMinute: null }, c.now).free).toBe(
      false,
    );
  });

  it("a cancelled request gives its place back", () => {
    const c = clock();
    const lane = new RateLane("srv", { requestsPerMinute: 60, inputTokensPerMinute: null }, c.now);
    expect(lane.reserve(0)).toBe(1000);
    lane.cancel(0);
    expect(lane.reserve(0)).toBe(1000);
    expect(lane.reserve(0)).toBe(2000);
  });

  it("the lanes of a process are one per server, and take new limits", () => {
    const lanes = new RateLanes();
    const a = lanes.lane("srv_a", { requestsPerMinute: 60, inputTokensPerMinute: null });
    expect(lanes.lane("srv_a", { requestsPerMinute: 120, inputTokensPerMinute: null })).toBe(a);
    expect(a.current.requestsPerMinute).toBe(120);
    expect(lanes.lane("srv_b", { requestsPerMinute: 60, inputTokensPerMinute: null })).not.toBe(a);
    lanes.update("srv_a", { requestsPerMinute: null, inputTokensPerMinute: 10 });
    expect(a.current).toEqual({ requestsPerMinute: null, inputTokensPerMinute: 10 });
    lanes.remove("srv_a");
    expect(lanes.get("srv_a")).toBeUndefined();
  });
});

describe("laneOpener", () => {
  it("sends a call's first attempt on its ticket, and a 429's request again after the lane's pause", async () => {
    const lane = new RateLane("srv", { requestsPerMinute: null, inputTokensPerMinute: null });
    const statuses = [429, 200];
    const sent: string[] = [];
    const opener = laneOpener(async (req) => {
      sent.push(String(req.body));
      return { status: statuses.shift() ?? 200, headers: { "retry-after-ms": "5" }, body: "" };
    }, lane);
    const ticket = { prepaid: true, onLimited: (s: number) => paused.push(s) };
    const paused: number[] = [];
    const res = await opener({
      url: "u",
      method: "POST",
      headers: {},
      body: "b",
      timeout: 1,
      signal: ticketSignal(ticket),
    });
    expect(res.status).toBe(200);
    expect(sent).toEqual(["b", "b"]);
    expect(ticket.prepaid).toBe(false);
    expect(paused).toEqual([0.005]);
    expect(lane.limited).toBe(1);
    expect(lane.sent).toBe(1); // the first attempt was paid for by the ticket, the second waited for the lane
  });

  it("hands the 429 to the scorer after 8 sends again", async () => {
    const lane = new RateLane("srv", { requestsPerMinute: null, inputTokensPerMinute: null });
    let calls = 0;
    const opener = laneOpener(async () => {
      calls++;
      return { status: 429, headers: { "retry-after-ms": "1" }, body: "" };
    }, lane);
    expect((await opener({ url: "u", method: "POST", headers: {}, timeout: 1 })).status).toBe(429);
    expect(calls).toBe(9);
  });
});

describe("retryAfter", () => {
  it("reads retry-after-ms, seconds and HTTP dates; ignores what it cannot read", () => {
    expect(retryAfter({ "retry-after-ms": "1500", "retry-after": "9" })).toBe(1.5);
    expect(retryAfter({ "retry-after": "3" })).toBe(3);
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(retryAfter({ "retry-after": "Wed, 21 Oct 2026 07:28:12 GMT" }, now)).toBe(12);
    expect(retryAfter({ "retry-after": "Wed, 21 Oct 2026 07:27:00 GMT" }, now)).toBe(0);
    expect(retryAfter({ "retry-after": "-5" })).toBeUndefined();
    expect(retryAfter({})).toBeUndefined();
  });
});

describe("token estimate", () => {
  const items = [{ name: "urgent", kind: "yesno" as const, question: "Is this urgent?" }];

  it("counts words and punctuation times 1.3, the question included", () => {
    const q = itemTokens(items);
    expect(q).toBe(Math.ceil(4 * 1.3)); // Is this urgent ? (each text rounded up, as the reference server does)
    expect(requestTokens("the parcel is late.", q, 512)).toBe(Math.ceil(5 * 1.3 + q));
  });

  it("counts the questions as sent: criteria with not stated, one question per option of a multi-label item", () => {
    const withNotStated = itemTokens([{ ...items[0], notStated: true }]);
    // the question, yes, no, "not stated" and its description
    expect(withNotStated).toBeGreaterThan(itemTokens(items) + 3);
    const multi = itemTokens([
      { name: "topics", kind: "multi" as const, question: "Which topics?", options: ["refund", "delivery"] },
    ]);
    // "Which topics? Does the option 'refund' apply?": 2 + 2 + 7 units (quotes count), twice
    expect(multi).toBe(2 * Math.ceil(11 * 1.3));
  });

  it("a text over the retrieval budget counts as the budget; a mapping as its JSON text", () => {
    const q = itemTokens(items);
    const long = "word ".repeat(5000);
    expect(requestTokens(long, q, 512)).toBe(Math.ceil(512 - q + q));
    // {"a":"b c"} : { " a " : " b c " } -> 10 units
    expect(requestTokens({ a: "b c" }, 0, 512)).toBe(Math.ceil(10 * 1.3));
  });
});
