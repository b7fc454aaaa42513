import { describe, expect, it } from "vitest";
import { scoreAnswer } from "../src/reply/answers.js";
import type { Question } from "../src/request/types.js";

const levels = (...names: string[]): Question => ({
  id: "q0",
  type: "score",
  instructions: "How much?",
  options: names.map((name) => ({ name, description: null })),
});

describe("score answers like the open-weight servers", () => {
  it("sends the expected level, a legend object and the spread-based confidence", () => {
    const answer = scoreAnswer(levels("low", "mid", "high"), [0.1, 0.2, 0.7], 2);
    expect(answer).toEqual({
      type: "score",
      score: 1.6, // 0 * 0.1 + 1 * 0.2 + 2 * 0.7
      legend: { 0: "low", 1: "mid", 2: "high" },
      probabilities: { 0: 0.1, 1: 0.2, 2: 0.7 },
      confidence: 0.8, // 1 - (0.1 * 2 + 0.2 * 1) / (3 - 1)
    });
  });

  it("gives confidence 1 when all the mass is on one level (and when there is one level)", () => {
    expect(scoreAnswer(levels("a", "b", "c", "d"), [0, 0, 1, 0], 2)).toMatchObject({
      score: 2,
      confidence: 1,
    });
    expect(scoreAnswer(levels("only"), [1], 0)).toMatchObject({
      score: 0,
      confidence: 1,
      legend: { 0: "only" },
    });
  });

  it("lowers the confidence with the distance of the mass from the mode", () => {
    // a tie between the ends: mode 0 (the first), half the mass 4 levels away -> 1 - 0.5 * 4 / 4
    const a = scoreAnswer(levels("0", "1", "2", "3", "4"), [0.5, 0, 0, 0, 0.5], 0);
    expect(a.score).toBe(2);
    expect(a.confidence).toBe(0.5);
  });
});
