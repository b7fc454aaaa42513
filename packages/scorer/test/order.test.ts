import { describe, expect, it } from "vitest";
import type { Item } from "../src/index.js";
import { DecisionScorer, decisionDecider, OrderedState, orderedState, ValueError } from "../src/index.js";
import { referenceServer } from "./helpers/server.js";

// JavaScript objects put integer-like keys first ({"b": 0, "2": 1} is {"2": 1, "b": 0}); the contract says a
// mapping state is read in its key order and criteria follow the item's option order. Checked on the raw
// request text the reference server received.
describe("key order on the wire", async () => {
  const server = await referenceServer({ checkpoints: false });
  const lastBody = () => server.requests[server.requests.length - 1].body;

  it("writes criteria in the item's option order, integer-like names included", async () => {
    const level: Item = {
      name: "level",
      kind: "choice",
      question: "Which level?",
      options: ["10", "2", "b", "1"],
    };
    const scale: Item = {
      name: "scale",
      kind: "score",
      question: "How much?",
      levels: ["3", "1", { name: "2", description: "some" }],
      notStated: true,
    };
    const decider = decisionDecider(server.url, "lexical");
    const [a, b] = await decider.decideAll("level 2 of 10", [level, scale]);
    expect(a.status).not.toBe("escalated");
    expect(b.status).not.toBe("escalated");
    const body = lastBody();
    expect(body).toContain('"criteria":{"10":null,"2":null,"b":null,"1":null}');
    expect(body).toContain(
      '"criteria":{"3":null,"1":null,"2":"some","not stated":"The input does not state it',
    );
    if (a.status === "answered") expect(Object.keys(a.probabilities).sort()).toEqual(["1", "10", "2", "b"]);
  });

  it("sends an OrderedState from JSONL text in its own key order, nested objects too", async () => {
    const line =
      '{"zeta": 0, "2": "two", "alpha": "a0", "nested": {"b": 1, "10": [1, {"y": 2, "1": 3}]}, "s": "a, b: \\"c\\"  d"}';
    const scorer = new DecisionScorer(server.url, "lexical");
    const [out] = await scorer.score(orderedState(line), [{ name: "u", kind: "yesno", question: "Urgent?" }]);
    expect(out.escalate).toBeUndefined();
    expect(lastBody()).toContain(
      '"state":{"zeta":0,"2":"two","alpha":"a0","nested":{"b":1,"10":[1,{"y":2,"1":3}]},"s":"a, b: \\"c\\"  d"},',
    );
    expect(JSON.parse(lastBody()).state).toEqual(JSON.parse(line));
  });

  it("sends an OrderedState from [key, value] pairs (a CSV row's columns) in their order", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    const row = new OrderedState([
      ["zeta", 0],
      ["2", "two"],
      ["alpha", "a0"],
      [
        "inner",
        orderedState([
          ["9", 1],
          ["a", 2],
        ]),
      ],
    ]);
    await scorer.score(row, [{ name: "u", kind: "yesno", question: "Urgent?" }]);
    expect(lastBody()).toContain('"state":{"zeta":0,"2":"two","alpha":"a0","inner":{"9":1,"a":2}},');
  });

  it("shows why: a plain object state puts integer-like keys first", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    await scorer.score({ zeta: 0, 2: "two", alpha: "a0" }, [
      { name: "u", kind: "yesno", question: "Urgent?" },
    ]);
    expect(lastBody()).toContain('"state":{"2":"two","zeta":0,"alpha":"a0"},');
  });

  it("keeps the order in request(body) too", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    await scorer.request({
      model: "lexical",
      state: orderedState('{"b": 1, "1": 2}'),
      questions: { q0: { type: "noul", instructions: "Urgent?" } },
    });
    expect(lastBody()).toContain('"state":{"b":1,"1":2},');
  });

  it("answers an equal body from the cache whatever form the state came in", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    const before = server.requests.length;
    const item: Item = { name: "u", kind: "yesno", question: "Urgent?" };
    await scorer.score({ a: 1, b: "x" }, [item]);
    await scorer.score(orderedState('{"a": 1, "b": "x"}'), [item]);
    await scorer.score(orderedState('{"b": "x", "a": 1}'), [item]);
    expect(server.requests.length).toBe(before + 2);
  });

  it("refuses what is not JSON or not pairs, saying what is right", () => {
    expect(() => orderedState("{zeta: 0}")).toThrow(ValueError);
    expect(() => orderedState("{zeta: 0}")).toThrow(/must be JSON text/);
    expect(() => orderedState("null")).toThrow(/a state is required/);
    expect(() =>
      orderedState([
        ["a", 1],
        ["a", 2],
      ]),
    ).toThrow(/appears twice/);
    expect(() => orderedState([["a"]] as unknown as [string, unknown][])).toThrow(/must be \[key, value\]/);
    expect(orderedState(' [ 1 , "a b" ] ').json).toBe('[1,"a b"]');
    expect(orderedState('{"b": 1, "1": 2}').value()).toEqual({ 1: 2, b: 1 });
  });
});
