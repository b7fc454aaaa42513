import { describe, expect, it } from "vitest";
import type { Item } from "../src/index.js";
import { DecisionScorer, decisionDecider } from "../src/index.js";
import { recordingSleep, referenceServer } from "./helpers/server.js";

const yesno: Item = {
  name: "urgent",
  kind: "yesno",
  question: "Is this message urgent?",
  options: [
    { name: "yes", description: "It asks for action today" },
    { name: "no", description: "It can wait" },
  ],
};
const team: Item = {
  name: "team",
  kind: "choice",
  question: "Which team should handle it?",
  options: [
    { name: "billing", description: "Charges, refunds, invoices" },
    { name: "shipping", description: "Parcels, delivery, tracking" },
  ],
};
const topics: Item = {
  name: "topics",
  kind: "multi",
  question: "Which topics does it mention?",
  options: [{ name: "refund", description: "money back" }, "delivery"],
  notStated: true,
};
const STATE = "I was charged twice for my parcel. Please refund the charge today.";

describe("against the reference server over HTTP", async () => {
  const server = await referenceServer();

  it("sends all the items of one input in one request, with the wire ids", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    const before = server.requests.length;
    const out = await scorer.score(STATE, [yesno, team, topics]);
    expect(server.requests.length).toBe(before + 1);
    const body = JSON.parse(server.requests.at(-1)!.body);
    expect(Object.keys(body.questions)).toEqual(["q0", "q1", "q2__0", "q2__1", "q2__ns"]);
    expect(body.model).toBe("lexical");
    expect(body.state).toBe(STATE);
    expect(out).toHaveLength(3);
    expect(out[0].logits).toHaveLength(2);
    expect(out[1].logits).toHaveLength(2);
    expect(out[2].logits).toHaveLength(2);
    expect(typeof out[2].unknown).toBe("number");
    for (const item of out) expect(item.escalate).toBeUndefined();
  });

  it("keeps a decision record per item with the request's figures", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    const [a, b] = await scorer.score(`${STATE} (record)`, [yesno, team]);
    expect(a.record.endpoint).toBe(`${server.url}/v1/decision`);
    expect(a.record.model).toBe("lexical");
    expect(a.record.questions).toBe(2);
    expect(a.record.ms).toBeGreaterThan(0);
    expect(a.record.usage?.input_tokens).toBeGreaterThan(0);
    expect(typeof a.record.latency_ms).toBe("number");
    expect(a.record.served_by).toBeUndefined();
    expect(b.record.ms).toBe(a.record.ms);
  });

  it("answers decisions: an option name for a choice, the chosen list for a multi-label item", async () => {
    const decider = decisionDecider(server.url, "lexical");
    const [d1, d2, d3] = await decider.decideAll(STATE, [yesno, team, topics]);
    for (const d of [d1, d2, d3]) expect(d.status === "answered" || d.status === "unknown").toBe(true);
    if (d2.status === "answered") {
      expect(["billing", "shipping"]).toContain(d2.answer);
      expect(d2.confidence).toBeCloseTo(Math.max(d2.probabilities.billing, d2.probabilities.shipping), 12);
    }
    if (d3.status === "answered") {
      expect(Array.isArray(d3.answer)).toBe(true);
      const ps = [d3.probabilities.refund, d3.probabilities.delivery];
      expect(d3.answer).toEqual(["refund", "delivery"].filter((_, j) => ps[j] >= 0.5));
      expect(d3.confidence).toBeCloseTo(Math.min(...ps.map((p) => Math.max(p, 1 - p))), 12);
    }
    expect(d1.extra.decision.endpoint).toBe(decider.endpoint);
  });

  it("caches answered requests by body: the same ask does not call the service again", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    const first = await scorer.score(`${STATE} (cache)`, [team]);
    const count = server.requests.length;
    const usage = scorer.usage;
    const second = await scorer.score(`${STATE} (cache)`, [team]);
    expect(server.requests.length).toBe(count);
    expect(second[0].logits).toEqual(first[0].logits);
    expect(scorer.usage).toEqual(usage);
    await scorer.score(`${STATE} (cache)`, [team], { cache: false });
    expect(server.requests.length).toBe(count + 1);
  });

  it("sends one request for identical asks in flight at the same time", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    const count = server.requests.length;
    const results = await Promise.all([1, 2, 3, 4].map(() => scorer.score(`${STATE} (inflight)`, [team])));
    expect(server.requests.length).toBe(count + 1);
    expect(new Set(results.map((r) => JSON.stringify(r[0].logits))).size).toBe(1);
  });

  it("sums usage across requests", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    const a = await scorer.score("first text about refunds", [team]);
    const b = await scorer.score("second, longer text about a parcel that never arrived", [team]);
    const sum = (a[0].record.usage?.input_tokens ?? 0) + (b[0].record.usage?.input_tokens ?? 0);
    expect(sum).toBeGreaterThan(0);
    expect(scorer.usage.input_tokens).toBe(sum);
    expect(scorer.usage.output_tokens).toBe(
      (a[0].record.usage?.output_tokens ?? 0) + (b[0].record.usage?.output_tokens ?? 0),
    );
  });

  it("passes extraBody options to the server, and a 422 for an unknown option escalates at once", async () => {
    const { waits, sleep } = recordingSleep();
    const scorer = new DecisionScorer(server.url, "lexical", undefined, {
      extraBody: { options: { max_thinking: 5 } },
      sleep,
    });
    const count = server.requests.length;
    const [out] = await scorer.score(STATE, [team]);
    expect(server.requests.length).toBe(count + 1);
    expect(waits).toEqual([]);
    expect(out.escalate).toMatch(
      /^the decision service refused the request: HTTP 422 unknown options: \['max_thinking'\]/,
    );
    expect(out.logits).toEqual([0, 0]);
  });

  it("a request without a model name gives a 422 escalation through request()", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    await expect(scorer.request({ state: "x", questions: {} })).rejects.toMatchObject({
      name: "EscalationError",
      reason: expect.stringMatching(/^the decision service refused the request: HTTP 422 /),
    });
  });

  it("request() resolves to the reply", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    const reply = await scorer.request({
      model: "lexical",
      state: STATE,
      questions: { q0: { type: "noul", instructions: "Is it about money?" } },
    });
    expect(reply.model).toBe("lexical");
    expect(typeof (reply.answers as Record<string, { noul: number }>).q0.noul).toBe("number");
  });

  it("reports the served model when an alias resolves to another name", async () => {
    const scorer = new DecisionScorer(server.url, "workbench-latest");
    const [out] = await scorer.score(STATE, [yesno]);
    expect(out.record.served_by).toMatch(/\S/);
    expect(out.record.served_by).not.toBe("workbench-latest");
  });

  it("carries reasoning when return_reasoning is on, without changing the fingerprint", async () => {
    const plain = new DecisionScorer(server.url, "lexical");
    const scorer = new DecisionScorer(server.url, "lexical", undefined, {
      extraBody: { options: { return_reasoning: true } },
    });
    expect(scorer.fingerprint).toBe(plain.fingerprint);
    const [single, multi] = await scorer.score(STATE, [team, topics]);
    const r = single.record.reasoning as { text: string; tokens: number; thought: boolean };
    expect(typeof r.text).toBe("string");
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.thought).toBe(false);
    expect(r.tokens).toBe(0);
    const per = multi.record.reasoning as Record<string, { text: string }>;
    expect(Object.keys(per).sort()).toEqual(["delivery", "not stated", "refund"]);
    const [none] = await plain.score(STATE, [team]);
    expect(none.record.reasoning).toBeUndefined();
  });
});
