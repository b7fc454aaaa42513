// @vitest-environment node

import type { Progress, RunEstimate } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import { budgetText, costText, estimateText } from "../src/transforms/cost";
import { progress } from "./fixtures";

const ESTIMATE: RunEstimate = {
  examples: 200,
  decisions: 600,
  inputTokens: 34450,
  outputTokens: 2200,
  inputPricePerMillion: 2,
  outputPricePerMillion: 8,
  cost: (34450 * 2 + 2200 * 8) / 1e6,
};

/** Spend after 60 of 200 examples, against `budget`. */
function spent(budget: Progress["budget"]): Progress {
  return progress({
    done: 60,
    answered: 150,
    unknown: 10,
    escalated: 20,
    usage: { input_tokens: 10335, output_tokens: 660, reasoning_tokens: 0 },
    cost: 0.02595,
    budget,
  });
}

describe("the cost guard's read-outs", () => {
  it("says a run's estimated tokens and, with prices, its cost", () => {
    expect(estimateText(ESTIMATE)).toBe(
      "Estimated 34,450 input tokens and 2,200 output tokens for 200 requests; estimated cost 0.0865.",
    );
    expect(estimateText({ ...ESTIMATE, cost: null })).toBe(
      "Estimated 34,450 input tokens and 2,200 output tokens for 200 requests; no prices set on this server, so no cost estimate.",
    );
  });

  it("shows spend against the caps a run has, nothing without caps", () => {
    expect(budgetText(spent(null))).toBeNull();
    expect(budgetText(spent({ maxCost: null, maxInputTokens: 10335 }))).toBe("input tokens 10,335 of 10,335");
    expect(budgetText(spent({ maxCost: 0.05, maxInputTokens: null }))).toBe("cost 0.02595 of 0.05");
    expect(costText(0)).toBe("0");
    expect(costText(1 / 3)).toBe("0.3333");
  });
});
