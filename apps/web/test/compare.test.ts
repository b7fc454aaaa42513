// @vitest-environment node

import type { Comparison } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import { compareRows, sameServedModels, servedBy, servedModelBanner } from "../src/transforms/compare";

function comparison(over: Partial<Comparison> = {}): Comparison {
  return {
    item: "q",
    split: "test",
    runs: [
      { id: "run_a", model: "workbench-latest", servedBy: ["bayes-2"] },
      { id: "run_b", model: "workbench-latest", servedBy: ["bayes-1"] },
    ],
    servedModelDiffers: true,
    n: 100,
    resamples: 1000,
    methods: { values: "as the report gives them", deltas: "paired bootstrap" },
    metrics: [
      {
        name: "accuracy",
        values: [
          [0.9, 0.85, 0.95],
          [0.8, 0.74, 0.86],
        ],
        deltas: [{ run: "run_b", vs: "run_a", delta: [-0.1, -0.15, -0.05] }],
      },
      {
        name: "ece",
        values: [
          [0.05, 0.03, 0.07],
          [0.12, 0.09, 0.15],
        ],
        deltas: [{ run: "run_b", vs: "run_a", delta: [0.07, 0.04, 0.1] }],
      },
      {
        name: "nll",
        values: [
          [0.3, 0.2, 0.4],
          [0.31, 0.2, 0.42],
        ],
        deltas: [{ run: "run_b", vs: "run_a", delta: [0.01, -0.02, 0.04] }],
      },
    ],
    bins: [[], []],
    flipped: { total: 0, compared: 100, offset: 0, rows: [] },
    ...over,
  };
}

describe("compareRows", () => {
  it("puts each delta under its run and judges it by the metric's direction", () => {
    const rows = compareRows(comparison());
    expect(rows[0].label).toBe("Accuracy");
    expect(rows[0].values[0]).toBe("90.0% (85.0–95.0%)");
    expect(rows[0].deltas[0]).toBeNull();
    expect(rows[0].deltas[1]).toMatchObject({ significant: true, verdict: "worse" });
    expect(rows[0].deltas[1]?.text).toBe("−10.0 pp (−15.0 pp to −5.0 pp)");
    // ECE going up is worse; an NLL interval straddling zero is no clear change
    expect(rows[1].deltas[1]?.verdict).toBe("worse");
    expect(rows[2].deltas[1]).toMatchObject({ significant: false, verdict: "same" });
  });

  it("calls a lower error better", () => {
    const c = comparison({
      metrics: [
        {
          name: "ece",
          values: [
            [0.1, 0.08, 0.12],
            [0.05, 0.03, 0.07],
          ],
          deltas: [{ run: "run_b", vs: "run_a", delta: [-0.05, -0.07, -0.03] }],
        },
      ],
    });
    expect(compareRows(c)[0].deltas[1]?.verdict).toBe("better");
  });
});

describe("servedModelBanner", () => {
  it("names what each run asked for and what served it", () => {
    const text = servedModelBanner(comparison());
    expect(text).toContain("run_a asked for workbench-latest and was served by bayes-2");
    expect(text).toContain("run_b asked for workbench-latest and was served by bayes-1");
  });

  it("is null when the same model served every run", () => {
    expect(servedModelBanner(comparison({ servedModelDiffers: false }))).toBeNull();
  });

  it("treats a run whose replies named no model as served by the one it asked for", () => {
    expect(servedBy({ model: "bayes-1", servedBy: [] })).toEqual(["bayes-1"]);
    expect(sameServedModels(["b", "a", "a"], ["a", "b"])).toBe(true);
    expect(sameServedModels(["a"], ["a", "b"])).toBe(false);
  });
});
