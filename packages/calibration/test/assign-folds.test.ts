import { describe, expect, it } from "vitest";
import { assignFolds } from "../src/index.js";

describe("assignFolds", () => {
  it("puts every item in one fold, fold sizes within one of each other, the same for the same seed", () => {
    for (const [n, folds] of [
      [0, 2],
      [7, 5],
      [103, 5],
      [1000, 3],
    ]) {
      const a = assignFolds(n, folds, 4);
      expect(a.length).toBe(n);
      const sizes = new Array(folds).fill(0);
      for (const f of a) sizes[f]++;
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(Array.from(assignFolds(n, folds, 4))).toEqual(Array.from(a));
    }
    // another seed shuffles differently
    expect(Array.from(assignFolds(1000, 5, 1))).not.toEqual(Array.from(assignFolds(1000, 5, 2)));
  });

  it("says what is wrong with a bad count or fold number", () => {
    expect(() => assignFolds(-1, 5, 0)).toThrow(/n must be an item count \(integer >= 0\), got -1/);
    expect(() => assignFolds(2.5, 5, 0)).toThrow(/got 2.5/);
    expect(() => assignFolds(10, 1, 0)).toThrow(/folds must be an integer >= 2, got 1/);
  });
});
