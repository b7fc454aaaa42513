import { describe, expect, it } from "vitest";
import type { Item, Reasoning } from "../src/index.js";
import { DecisionScorer, decisionDecider, REASONING_CHARS } from "../src/index.js";
import { referenceServer } from "./helpers/server.js";

// Replies the reference server's own models never send (gateway usage names, cost, long reasoning, a
// winning "not stated") come from its fault plan: a 200 with a body of our choosing on chosen requests.
async function replying(...bodies: unknown[]) {
  return referenceServer({
    faults: {
      rules: bodies.map((body, i) => ({
        on: [i + 1],
        fault: { kind: "status" as const, status: 200, body },
      })),
    },
  });
}

const team: Item = {
  name: "team",
  kind: "choice",
  question: "Which team?",
  options: ["billing", "shipping"],
  notStated: true,
};
const tags: Item = {
  name: "tags",
  kind: "multi",
  question: "Which tags?",
  options: ["a", "b"],
  notStated: true,
};

describe("reply fields", () => {
  it("accepts chat-style usage names and sums cost from usage.cost and a top-level cost", async () => {
    const answers = { q0: { type: "noul", noul: 0.7 } };
    const server = await replying(
      {
        model: "m",
        answers,
        usage: {
          prompt_tokens: 100,
          completion_tokens: 3,
          completion_tokens_details: { reasoning_tokens: 40 },
          cost: 0.002,
        },
      },
      { model: "m", answers, usage: { input_tokens: 50, output_tokens: 2 }, cost: 0.001 },
    );
    const scorer = new DecisionScorer(server.url, "m");
    const yesno: Item = { name: "y", kind: "yesno", question: "Q?" };
    const [a] = await scorer.score("one", [yesno]);
    const [b] = await scorer.score("two", [yesno]);
    expect(a.record.usage).toEqual({ input_tokens: 100, output_tokens: 3, reasoning_tokens: 40 });
    expect(a.record.cost).toBe(0.002);
    expect(b.record.usage).toEqual({ input_tokens: 50, output_tokens: 2 });
    expect(b.record.cost).toBe(0.001);
    expect(scorer.usage).toEqual({ input_tokens: 150, output_tokens: 5, reasoning_tokens: 40 });
    expect(scorer.cost).toBeCloseTo(0.003, 12);
    expect(a.record.served_by).toBeUndefined();
  });

  it("cuts reasoning text to REASONING_CHARS with its token count and whether the model thought", async () => {
    const long = "because ".repeat(400);
    const server = await replying({
      model: "m-2026-01",
      answers: {
        q0: {
          type: "choice",
          choice: "billing",
          confidence: 0.6,
          probabilities: { billing: 0.6, shipping: 0.3, "not stated": 0.1 },
        },
      },
      reasoning: { q0: { thought: true, closed: true, tokens: 512, text: long } },
    });
    const [out] = await new DecisionScorer(server.url, "m").score("x", [team]);
    const r = out.record.reasoning as Reasoning;
    expect(REASONING_CHARS).toBe(1000);
    expect(r.text).toBe(long.slice(0, 1000));
    expect(r).toMatchObject({ tokens: 512, thought: true, closed: true, length: long.length });
    expect(r.length).toBeGreaterThan(r.text.length);
    expect(out.record.served_by).toBe("m-2026-01");
  });

  it("makes an Unknown decision when not stated is the most probable", async () => {
    const server = await replying({
      answers: {
        q0: {
          type: "choice",
          choice: "not stated",
          confidence: 0.7,
          probabilities: { billing: 0.2, shipping: 0.1, "not stated": 0.7 },
        },
      },
    });
    const decision = await decisionDecider(server.url, "m").decide("x", team);
    expect(decision.status).toBe("unknown");
    if (decision.status === "unknown") {
      expect(decision.reason).toBe("not stated");
      expect(decision.confidence).toBeCloseTo(0.7, 12);
      expect(Math.exp(decision.unknown)).toBeCloseTo(0.7, 12);
    }
  });

  it("answers, not Unknown, when a real option beats not stated", async () => {
    const server = await replying({
      answers: {
        q0: { type: "choice", probabilities: { billing: 0.45, shipping: 0.15, "not stated": 0.4 } },
      },
    });
    const decision = await decisionDecider(server.url, "m").decide("x", team);
    expect(decision.status).toBe("answered");
    if (decision.status === "answered") {
      expect(decision.answer).toBe("billing");
      expect(decision.probabilities["not stated"]).toBeCloseTo(0.4, 12);
    }
  });

  it("chooses multi-label options at 0.5 and abstains when its not-stated question reaches 0.5", async () => {
    const server = await replying(
      { answers: { q0__0: { noul: 0.5 }, q0__1: { noul: 0.2 }, q0__ns: { noul: 0.1 } } },
      { answers: { q0__0: { noul: 0.9 }, q0__1: { noul: 0.2 }, q0__ns: { noul: 0.8 } } },
    );
    const decider = decisionDecider(server.url, "m");
    const first = await decider.decide("one", tags);
    expect(first.status).toBe("answered");
    if (first.status === "answered") {
      expect(first.answer).toEqual(["a"]);
      expect(first.confidence).toBeCloseTo(0.5, 9);
    }
    const second = await decider.decide("two", tags);
    expect(second.status).toBe("unknown");
  });

  it("reads multi-label reasoning per option", async () => {
    const server = await replying({
      answers: { q0__0: { noul: 0.9 }, q0__1: { noul: 0.1 }, q0__ns: { noul: 0.1 } },
      reasoning: {
        q0__0: { thought: false, tokens: 0, text: "word 'a'" },
        q0__1: { thought: false, tokens: 0, text: "nothing" },
      },
    });
    const [out] = await new DecisionScorer(server.url, "m").score("x", [tags]);
    expect(out.record.reasoning).toEqual({
      a: { text: "word 'a'", tokens: 0, thought: false, length: 8 },
      b: { text: "nothing", tokens: 0, thought: false, length: 7 },
    });
  });
});
