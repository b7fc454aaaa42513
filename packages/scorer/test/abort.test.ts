import { describe, expect, it } from "vitest";
import { AbortError, DecisionScorer, decisionDecider, ValueError } from "../src/index.js";
import { team, urgent } from "./helpers/items.js";
import { scripted, yes } from "./helpers/scripted.js";
import { recordingSleep, referenceServer } from "./helpers/server.js";

/** Settles a promise into what it gave: the value, or the error. */
const outcome = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe("an AbortSignal per call", () => {
  it("rejects at once when already aborted, sending nothing", async () => {
    const server = await scripted([{ body: yes(0.9) }]);
    const scorer = new DecisionScorer(server.url, "m");
    const error = await scorer.score("x", [urgent], { signal: AbortSignal.abort() }).catch((e) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(error.name).toBe("AbortError");
    expect(server.bodies).toHaveLength(0);
  });

  it("stops a request in flight: neither escalated nor cached, so the next ask sends again", async () => {
    const server = await referenceServer({
      faults: { rules: [{ on: [1], fault: { kind: "delay", ms: 5000 } }] },
      checkpoints: false,
    });
    const scorer = new DecisionScorer(server.url, "lexical");
    const controller = new AbortController();
    const pending = outcome(scorer.score("parcel lost", [team], { signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const asked = performance.now();
    controller.abort();
    const got = await pending;
    expect(performance.now() - asked).toBeLessThan(2000);
    expect("error" in got && got.error).toBeInstanceOf(AbortError);
    const [again] = await scorer.score("parcel lost", [team]);
    expect(again.escalate).toBeUndefined();
    expect(server.requests.length).toBe(2);
  });

  it("stops a wait between attempts (the default timer), also a Retry-After wait", async () => {
    const server = await scripted([
      { status: 429, headers: { "retry-after": "30" }, body: { detail: "slow down" } },
    ]);
    const scorer = new DecisionScorer(server.url, "m");
    const controller = new AbortController();
    const pending = outcome(scorer.score("x", [urgent], { signal: controller.signal }));
    while (server.bodies.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    const asked = performance.now();
    controller.abort(new Error("the run was stopped"));
    const got = await pending;
    expect(performance.now() - asked).toBeLessThan(2000);
    const error = "error" in got ? (got.error as AbortError) : undefined;
    expect(error).toBeInstanceOf(AbortError);
    expect(error?.message).toContain("the run was stopped");
    expect(server.bodies).toHaveLength(1);
  });

  it("stops a wait through a caller's own sleep too", async () => {
    const server = await scripted([{ status: 503 }]);
    const controller = new AbortController();
    let sleeping = 0;
    const sleep = () => {
      sleeping++;
      controller.abort();
      return new Promise<void>(() => {}); // never ends by itself
    };
    const scorer = new DecisionScorer(server.url, "m", undefined, { sleep });
    const error = await scorer.score("x", [urgent], { signal: controller.signal }).catch((e) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(sleeping).toBe(1);
    expect(server.bodies).toHaveLength(1);
  });

  it("cancels one caller of a shared request without failing the other", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const scorer = new DecisionScorer("http://127.0.0.1:9", "m", undefined, {
      opener: async (req) => {
        await gate;
        if (req.signal?.aborted) throw new Error("aborted by the caller");
        return { status: 200, headers: {}, body: JSON.stringify(yes(0.7)) };
      },
    });
    const first = new AbortController();
    const a = outcome(scorer.score("same", [urgent], { signal: first.signal }));
    const b = outcome(scorer.score("same", [urgent]));
    first.abort();
    release();
    const [ga, gb] = await Promise.all([a, b]);
    expect("error" in ga && ga.error).toBeInstanceOf(AbortError);
    expect("value" in gb && gb.value[0].escalate).toBeUndefined();
    expect("value" in gb && Math.exp(gb.value[0].logits[0])).toBeCloseTo(0.7, 9);
  });

  it("passes the call's signal to the opener, none without one", async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const scorer = new DecisionScorer("http://127.0.0.1:9", "m", undefined, {
      opener: async (req) => {
        seen.push(req.signal);
        return { status: 200, headers: {}, body: JSON.stringify(yes(0.7)) };
      },
    });
    const controller = new AbortController();
    await scorer.score("x", [urgent], { signal: controller.signal });
    await scorer.score("y", [urgent]);
    expect(seen).toEqual([controller.signal, undefined]);
  });

  it("refuses a signal that is not an AbortSignal", async () => {
    const scorer = new DecisionScorer("http://127.0.0.1:9", "m");
    await expect(scorer.score("x", [urgent], { signal: {} as AbortSignal })).rejects.toThrow(ValueError);
  });
});

describe("an AbortSignal per batch", () => {
  it("rejects decideAll and decide with an AbortError, and request(body) too", async () => {
    const server = await referenceServer({
      faults: { rules: [{ fault: { kind: "delay", ms: 5000 } }] },
      checkpoints: false,
    });
    const { sleep } = recordingSleep();
    const decider = decisionDecider(server.url, "lexical", undefined, { sleep });
    const controller = new AbortController();
    const all = outcome(decider.decideAll("x", [urgent, team], { signal: controller.signal }));
    const one = outcome(decider.decide("y", urgent, { signal: controller.signal }));
    const raw = outcome(
      decider.scorer.request(
        { model: "lexical", state: "z", questions: { q0: { type: "noul", instructions: "Urgent?" } } },
        { signal: controller.signal },
      ),
    );
    while (server.requests.length < 3) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    for (const got of await Promise.all([all, one, raw])) {
      expect("error" in got && got.error).toBeInstanceOf(AbortError);
    }
  });
});
