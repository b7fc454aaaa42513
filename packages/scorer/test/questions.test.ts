import { describe, expect, it } from "vitest";
import type { Item } from "../src/index.js";
import { DecisionScorer, NOT_STATED_DESCRIPTION, ValueError } from "../src/index.js";

const scorer = new DecisionScorer("http://127.0.0.1:8009", "m");

describe("questions(item) follows the wire format", () => {
  it("sends a choice item as choice with criteria in option order, null without a description", () => {
    const item: Item = {
      name: "team",
      kind: "choice",
      question: "Which team?",
      options: [{ name: "billing", description: "Charges, refunds" }, "shipping"],
    };
    expect(scorer.questions(item)).toEqual({
      "": {
        type: "choice",
        instructions: "Which team?",
        criteria: { billing: "Charges, refunds", shipping: null },
      },
    });
    expect(Object.keys(scorer.questions(item)[""].criteria!)).toEqual(["billing", "shipping"]);
  });

  it("sends a yes/no item as noul without criteria", () => {
    expect(scorer.questions({ name: "u", kind: "yesno", question: "Is this urgent?" })).toEqual({
      "": { type: "noul", instructions: "Is this urgent?" },
    });
  });

  it("sends yes/no with not stated as a choice over yes, no, not stated", () => {
    const q = scorer.questions({
      name: "u",
      kind: "yesno",
      question: "Is it paid?",
      notStated: true,
      options: [
        { name: "no", description: "Unpaid" },
        { name: "yes", description: "Paid" },
      ],
    });
    expect(q[""].type).toBe("choice");
    expect(Object.keys(q[""].criteria!)).toEqual(["yes", "no", "not stated"]);
    expect(q[""].criteria).toEqual({ yes: "Paid", no: "Unpaid", "not stated": NOT_STATED_DESCRIPTION });
  });

  it("begins the not-stated description with the words that the input does not state it", () => {
    expect(NOT_STATED_DESCRIPTION.startsWith("The input does not state it")).toBe(true);
  });

  it("sends a score item as a choice over its levels in order, not stated last", () => {
    const q = scorer.questions({
      name: "s",
      kind: "score",
      question: "How severe?",
      levels: ["low", { name: "medium", description: "Needs a reply today" }, "high"],
      notStated: true,
    });
    expect(q).toEqual({
      "": {
        type: "choice",
        instructions: "How severe?",
        criteria: {
          low: null,
          medium: "Needs a reply today",
          high: null,
          "not stated": NOT_STATED_DESCRIPTION,
        },
      },
    });
  });

  it("sends a multi-label item as one noul per option, plus __ns when not stated is allowed", () => {
    const q = scorer.questions({
      name: "topics",
      kind: "multi",
      question: "Which topics?",
      options: [{ name: "billing", description: "Charges, refunds" }, "shipping"],
      notStated: true,
    });
    expect(q).toEqual({
      __0: {
        type: "noul",
        instructions: "Which topics? Does the option 'billing' (Charges, refunds) apply?",
      },
      __1: { type: "noul", instructions: "Which topics? Does the option 'shipping' apply?" },
      __ns: {
        type: "noul",
        instructions: `Which topics? Is the answer not stated in the input? ${NOT_STATED_DESCRIPTION}`,
      },
    });
  });

  it("puts only type, instructions and criteria on a question", () => {
    for (const q of Object.values(
      scorer.questions({ name: "t", kind: "multi", question: "Q?", options: ["a", "b"], notStated: true }),
    )) {
      expect(Object.keys(q).sort()).toEqual(["instructions", "type"]);
    }
  });
});

describe("items the API cannot represent are ValueErrors", () => {
  const bad: [string, unknown][] = [
    ["a span item", { name: "x", kind: "span", question: "Where?" }],
    ["evidence quotes", { name: "x", kind: "choice", question: "Q?", options: ["a", "b"], evidence: true }],
    ["an unknown kind", { name: "x", kind: "ranking", question: "Q?", options: ["a", "b"] }],
    ["a choice without options", { name: "x", kind: "choice", question: "Q?" }],
    ["a choice with one option", { name: "x", kind: "choice", question: "Q?", options: ["a"] }],
    ["a duplicate option", { name: "x", kind: "choice", question: "Q?", options: ["a", "a"] }],
    [
      "a reserved not stated option",
      { name: "x", kind: "choice", question: "Q?", options: ["a", "not stated"] },
    ],
    ["a score without levels", { name: "x", kind: "score", question: "Q?", options: ["a", "b"] }],
    [
      "yes/no options other than yes and no",
      { name: "x", kind: "yesno", question: "Q?", options: ["y", "n"] },
    ],
    ["an empty question", { name: "x", kind: "yesno", question: " " }],
    ["no name", { kind: "yesno", question: "Q?" }],
    [
      "a non-string description",
      { name: "x", kind: "choice", question: "Q?", options: [{ name: "a", description: 3 }, "b"] },
    ],
  ];
  for (const [what, item] of bad) {
    it(`refuses ${what}`, () => {
      expect(() => scorer.questions(item as Item)).toThrow(ValueError);
    });
  }

  it("names spans and evidence in the message", () => {
    expect(() =>
      scorer.questions({ name: "x", kind: "span", question: "Where?" } as unknown as Item),
    ).toThrow(/spans or evidence quotes/);
  });
});
