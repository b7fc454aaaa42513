import { describe, expect, it } from "vitest";
import type { Item } from "../src/index.js";
import { DecisionScorer, EscalationError, ValueError } from "../src/index.js";

const scorer = new DecisionScorer("http://127.0.0.1:8009", "m");
const choice: Item = { name: "c", kind: "choice", question: "Q?", options: ["a", "b", "c"] };
const yesno: Item = { name: "y", kind: "yesno", question: "Q?" };
const multi: Item = { name: "m", kind: "multi", question: "Q?", options: ["a", "b"], notStated: true };

const exp = (xs: number[]) => xs.map(Math.exp);

describe("answerLogits", () => {
  it("returns log-probabilities in option order, renormalised", () => {
    const logits = scorer.answerLogits(choice, { probabilities: { c: 0.1, a: 0.6, b: 0.2 } });
    const p = exp(logits);
    expect(p[0]).toBeCloseTo(0.6 / 0.9, 12);
    expect(p[1]).toBeCloseTo(0.2 / 0.9, 12);
    expect(p[2]).toBeCloseTo(0.1 / 0.9, 12);
  });

  it("clips exact zeros and ones at 1e-6 before taking logs", () => {
    const logits = scorer.answerLogits(choice, { probabilities: { a: 1, b: 0, c: 0 } });
    expect(logits.every(Number.isFinite)).toBe(true);
    expect(Math.exp(logits[1])).toBeCloseTo(1e-6 / (1 + 2e-6), 15);
  });

  it("reads a yes/no answer as [yes, no] from P(yes)", () => {
    const [yes, no] = scorer.answerLogits(yesno, { type: "noul", noul: 0.93 });
    expect(Math.exp(yes)).toBeCloseTo(0.93, 12);
    expect(Math.exp(no)).toBeCloseTo(0.07, 12);
  });

  it("puts not stated last when the item allows it", () => {
    const item: Item = { ...choice, notStated: true };
    const logits = scorer.answerLogits(item, {
      probabilities: { a: 0.2, b: 0.1, c: 0.1, "not stated": 0.6 },
    });
    expect(logits).toHaveLength(4);
    expect(Math.exp(logits[3])).toBeCloseTo(0.6, 12);
  });

  it("never reads choice or confidence, only the probabilities", () => {
    const logits = scorer.answerLogits(choice, {
      choice: "c",
      confidence: 0.99,
      probabilities: { a: 0.7, b: 0.2, c: 0.1 },
    });
    expect(logits.indexOf(Math.max(...logits))).toBe(0);
  });

  it("refuses a multi-label item", () => {
    expect(() => scorer.answerLogits(multi, { noul: 0.5 })).toThrow(ValueError);
  });

  const invalid: [string, unknown, RegExp][] = [
    ["a missing answer", undefined, /no answer/],
    ["missing probabilities", { choice: "a" }, /no probabilities/],
    ["a missing probability", { probabilities: { a: 0.5, b: 0.5 } }, /'c'.* is missing/],
    ["NaN", { probabilities: { a: Number.NaN, b: 0.5, c: 0.5 } }, /'a'.* is NaN/],
    ["out of range", { probabilities: { a: 1.7, b: 0.5, c: 0.5 } }, /'a'.* is 1.7, outside 0..1/],
    ["negative", { probabilities: { a: -0.1, b: 0.5, c: 0.5 } }, /outside 0..1/],
    ["a boolean", { probabilities: { a: true, b: 0.5, c: 0.5 } }, /is a boolean/],
    ["a string", { probabilities: { a: "0.5", b: 0.5, c: 0.5 } }, /is a string/],
  ];
  for (const [what, answer, message] of invalid) {
    it(`escalates ${what} as invalid decision output`, () => {
      let error: unknown;
      try {
        scorer.answerLogits(choice, answer);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(EscalationError);
      expect((error as EscalationError).reason).toMatch(/^invalid decision output: /);
      expect((error as EscalationError).reason).toMatch(message);
    });
  }

  it("escalates a non-numeric noul", () => {
    expect(() => scorer.answerLogits(yesno, { noul: "yes" })).toThrow(/invalid decision output: .*string/);
  });
});

describe("read", () => {
  it("gives per-option log-odds for a multi-label item and the not-stated log-odds as unknown", () => {
    const out = scorer.read(multi, { __0: { noul: 0.8 }, __1: { noul: 0.3 }, __ns: { noul: 0.1 } });
    expect(out.logits[0]).toBeCloseTo(Math.log(0.8 / 0.2), 12);
    expect(out.logits[1]).toBeCloseTo(Math.log(0.3 / 0.7), 12);
    expect(out.unknown).toBeCloseTo(Math.log(0.1 / 0.9), 12);
  });

  it("gives the real options as logits and not stated as unknown for a single question", () => {
    const item: Item = { ...choice, notStated: true };
    const out = scorer.read(item, { "": { probabilities: { a: 0.5, b: 0.2, c: 0.1, "not stated": 0.2 } } });
    expect(out.logits).toHaveLength(3);
    expect(Math.exp(out.unknown!)).toBeCloseTo(0.2, 12);
  });

  it("has no unknown when the item does not allow not stated", () => {
    expect(scorer.read(yesno, { "": { noul: 0.4 } }).unknown).toBeUndefined();
  });

  it("escalates a multi-label option with no answer", () => {
    expect(() => scorer.read(multi, { __0: { noul: 0.8 }, __ns: { noul: 0.1 } })).toThrow(
      /no answer for __1/,
    );
  });
});
