import { describe, expect, it } from "vitest";
import type { Item, OpenerRequest, State } from "../src/index.js";
import { DecisionScorer } from "../src/index.js";

const items: Item[] = [
  { name: "spam", kind: "yesno", question: "Is it spam?" },
  {
    name: "team",
    kind: "choice",
    question: 'Which "team"?',
    options: [{ name: "2", description: "billing \u00e9 \u{1f600}" }, "shipping"],
    notStated: true,
  },
  { name: "tone", kind: "score", question: "How angry?", levels: ["calm", "furious"] },
  {
    name: "topics",
    kind: "multi",
    question: "Topics?",
    options: ["refund", { name: "delivery" }],
    notStated: true,
  },
];

function capture(extraBody?: Record<string, unknown>) {
  const sent: OpenerRequest[] = [];
  const scorer = new DecisionScorer("http://127.0.0.1:9", "m\u00e9", undefined, {
    extraBody,
    retries: 0,
    opener: async (req) => {
      sent.push(req);
      return { status: 503, headers: {}, body: "down" };
    },
  });
  return { scorer, sent };
}

/** What the body must be: the JSON of {...extraBody, model, state, questions} with the wire ids. */
function expected(scorer: DecisionScorer, state: unknown, extraBody?: Record<string, unknown>): string {
  const questions: Record<string, unknown> = {};
  items.forEach((item, i) => {
    for (const [suffix, q] of Object.entries(scorer.questions(item))) questions[`q${i}${suffix}`] = q;
  });
  return JSON.stringify({ ...extraBody, model: scorer.model, state, questions });
}

describe("the request body", () => {
  const states: [string, unknown][] = [
    ["a text with quotes, escapes and emoji", 'Say "hi"\n\ttab \\ \u2028 \u{1f600}'],
    ["a mapping with integer-like keys", { b: 1, 10: "ten", a: [1, { x: null }], 2: true }],
    ["a list", ["one", 2, { three: 3 }]],
    ["a value whose toJSON reads its key", { toJSON: (key: string) => `serialised under '${key}'` }],
    ["a value that serialises to nothing", { toJSON: () => undefined }],
  ];
  for (const [what, state] of states) {
    it(`is the JSON of extraBody, model, state and questions for ${what}`, async () => {
      const extraBody = { user: "u1", 7: "seven", options: { think: false, budget: [1, 2] } };
      for (const extra of [undefined, extraBody]) {
        const { scorer, sent } = capture(extra);
        await scorer.score(state as State, items);
        expect(sent).toHaveLength(1);
        expect(sent[0].body).toBe(expected(scorer, state, extra));
      }
    });
  }

  it("numbers the questions by the item's place in each call", async () => {
    const { scorer, sent } = capture();
    await scorer.score("s", [items[3], items[0]]);
    expect(Object.keys(JSON.parse(sent[0].body!).questions)).toEqual(["q0__0", "q0__1", "q0__ns", "q1"]);
  });
});

describe("a cached answer", () => {
  it("gives the same output and records as the call that was sent, as new objects", async () => {
    let calls = 0;
    const reply = {
      model: "m-2",
      answers: { q0: { noul: 0.8 }, q1: { probabilities: { 2: 0.5, shipping: 0.3, "not stated": 0.2 } } },
      reasoning: { q0: { text: "because", tokens: 3 } },
      usage: { input_tokens: 40, output_tokens: 3, cost: 0.25 },
      latency_ms: 1.5,
    };
    const scorer = new DecisionScorer("http://127.0.0.1:9", "m", undefined, {
      opener: async () => {
        calls++;
        return { status: 200, headers: {}, body: JSON.stringify(reply) };
      },
    });
    const first = await scorer.score("s", items.slice(0, 2));
    const totals = { usage: scorer.usage, cost: scorer.cost };
    const second = await scorer.score("s", items.slice(0, 2));
    expect(calls).toBe(1);
    expect(second).toEqual(first);
    expect(second[0].record).toMatchObject({ served_by: "m-2", cost: 0.25, latency_ms: 1.5, questions: 2 });
    expect(second[0].record.usage).toEqual({ input_tokens: 40, output_tokens: 3 });
    expect(second[0].record.reasoning).toEqual({ text: "because", tokens: 3, thought: false, length: 7 });
    expect({ usage: scorer.usage, cost: scorer.cost }).toEqual(totals);
    first[0].logits[0] = 99;
    first[0].record.usage!.input_tokens = 99;
    const third = await scorer.score("s", items.slice(0, 2));
    expect(third).toEqual(second);
    expect(third[0].logits[0]).not.toBe(99);
  });
});

describe("the answer cache's key", () => {
  /** A service whose P(yes) depends on the question asked, counting its calls. */
  function service() {
    const calls: string[] = [];
    const scorer = new DecisionScorer("http://127.0.0.1:9", "m", undefined, {
      opener: async (req) => {
        const body = JSON.parse(req.body!);
        calls.push(req.body!);
        const k = Number(/\d+/.exec(body.questions.q0.instructions)?.[0] ?? 0);
        return { status: 200, headers: {}, body: JSON.stringify({ answers: { q0: { noul: pOf(k) } } }) };
      },
    });
    return { scorer, calls };
  }
  const pOf = (k: number) => ((k % 97) + 1) / 100;
  const ask = (k: number): Item => ({ name: "y", kind: "yesno", question: `Question ${k}?` });

  it("finds an answer by body: equal questions from other item objects share it, other ones do not", async () => {
    const { scorer, calls } = service();
    await scorer.score("s", [ask(1)]);
    await scorer.score("s", [ask(1)]);
    expect(calls).toHaveLength(1);
    await scorer.score("s", [ask(2)]);
    await scorer.score("t", [ask(1)]);
    await scorer.score({ state: "s" }, [ask(1)]);
    expect(calls).toHaveLength(4);
    await scorer.score("s", [ask(2)]);
    await scorer.score("t", [ask(1)]);
    expect(calls).toHaveLength(4);
  });

  it("never answers from another body's entry, after more distinct questions than it numbers", async () => {
    const { scorer } = service();
    const n = 4 * 2048 + 10;
    for (let k = 0; k < n; k++) {
      const [out] = await scorer.score("s", [ask(k)]);
      expect(Math.exp(out.logits[0])).toBeCloseTo(pOf(k), 9);
    }
    for (const k of [0, 1, n - 2048, n - 1]) {
      const [out] = await scorer.score("s", [ask(k)]);
      expect(Math.exp(out.logits[0])).toBeCloseTo(pOf(k), 9);
    }
  });
});

describe("a 200 whose body is not JSON", () => {
  it("is retried like a broken connection, described without quoting the body, which may echo a key", async () => {
    const secret = "sk-live-ECHOEDKEY0123456789";
    const scorer = new DecisionScorer("http://127.0.0.1:9", "m", secret, {
      retries: 0,
      opener: async () => ({ status: 200, headers: {}, body: `${secret} is not a JSON reply` }),
    });
    const outcome = await scorer.score("s", items.slice(0, 1)).then(
      (r) => JSON.stringify(r),
      (e: Error) => `${e.name}: ${e.message} ${JSON.stringify(e)}`,
    );
    expect(outcome).toContain("the decision service did not answer after 1 attempts: the reply is not JSON");
    expect(outcome).not.toContain(secret.slice(0, 6));
  });
});
