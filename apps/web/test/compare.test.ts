// @vitest-environment node

import type { Comparison } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import {
  compareOrder,
  compareRows,
  distinctTitles,
  exampleLink,
  pageText,
  runTitle,
  sameServedModels,
  servedBy,
  servedModelBanner,
  swappedBaseline,
} from "../src/transforms/compare";

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
    expect(rows[0].deltas[1]?.words).toBe("−10.0 pp vs baseline, worse");
    expect(rows[0].deltas[1]?.range).toBe("−15.0 pp to −5.0 pp");
    // ECE going up is worse; an NLL interval straddling zero is no clear change
    expect(rows[1].deltas[1]?.verdict).toBe("worse");
    expect(rows[2].deltas[1]).toMatchObject({ significant: false, verdict: "same" });
    expect(rows[2].deltas[1]?.words).toBe("+0.010 vs baseline, no clear change");
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

  it("names each run by its title when it has one, keeping its id", () => {
    const text = servedModelBanner(comparison(), new Map([["run_a", "before the swap"]]));
    expect(text).toContain("before the swap (run_a asked for workbench-latest and was served by bayes-2)");
    expect(text).toContain("; run_b asked for workbench-latest and was served by bayes-1.");
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

describe("compareOrder", () => {
  const runs = [
    // the Runs page lists the newest first
    { id: "run_new", createdAt: "2026-11-20T10:00:00.000Z" },
    { id: "run_mid", createdAt: "2026-11-10T10:00:00.000Z" },
    { id: "run_old", createdAt: "2026-11-01T10:00:00.000Z" },
  ];

  it("makes the older run the baseline whatever order the address gives", () => {
    for (const chosen of [
      ["run_new", "run_old"],
      ["run_old", "run_new"],
    ]) {
      expect(compareOrder(chosen, runs)).toEqual({
        baseline: "run_old",
        order: ["run_old", "run_new"],
        chosen: false,
      });
    }
    // three runs: oldest first, the others by age
    expect(compareOrder(["run_new", "run_old", "run_mid"], runs).order).toEqual([
      "run_old",
      "run_mid",
      "run_new",
    ]);
  });

  it("keeps a baseline picked in the address, and ignores one that is not compared", () => {
    expect(compareOrder(["run_old", "run_new"], runs, "run_new")).toEqual({
      baseline: "run_new",
      order: ["run_new", "run_old"],
      chosen: true,
    });
    expect(compareOrder(["run_old", "run_new"], runs, "run_mid").baseline).toBe("run_old");
    expect(compareOrder(["run_old", "run_new"], runs, "").baseline).toBe("run_old");
  });

  it("puts runs it has no date for last, in the address's order, and is empty for no runs", () => {
    expect(compareOrder(["run_gone", "run_new", "run_mid"], runs).order).toEqual([
      "run_mid",
      "run_new",
      "run_gone",
    ]);
    expect(compareOrder([], runs)).toEqual({ baseline: "", order: [], chosen: false });
  });

  it("breaks a tie of creation times by id, so the order never depends on the address", () => {
    const same = [
      { id: "run_b", createdAt: "2026-11-01T10:00:00.000Z" },
      { id: "run_a", createdAt: "2026-11-01T10:00:00.000Z" },
    ];
    expect(compareOrder(["run_b", "run_a"], same).order).toEqual(["run_a", "run_b"]);
    expect(compareOrder(["run_a", "run_b"], same).order).toEqual(["run_a", "run_b"]);
  });

  it("swaps: the other run becomes the baseline, and swapping back restores the first", () => {
    const first = compareOrder(["run_new", "run_old"], runs);
    const next = swappedBaseline(first.order);
    expect(next).toBe("run_new");
    const swapped = compareOrder(["run_new", "run_old"], runs, next);
    expect(swapped.order).toEqual(["run_new", "run_old"]);
    expect(compareOrder(["run_new", "run_old"], runs, swappedBaseline(swapped.order)).order).toEqual(
      first.order,
    );
  });
});

describe("deltas read new vs baseline", () => {
  it("calls the newer run's higher ECE worse and its lower ECE better, with the sign of new - baseline", () => {
    // the API's deltas are run - first run; the page asks with the baseline first
    const ece = (base: number, next: number) =>
      comparison({
        metrics: [
          {
            name: "ece",
            values: [
              [base, base - 0.01, base + 0.01],
              [next, next - 0.01, next + 0.01],
            ],
            deltas: [
              { run: "run_b", vs: "run_a", delta: [next - base, next - base - 0.02, next - base + 0.02] },
            ],
          },
        ],
      });
    expect(compareRows(ece(0.05, 0.326))[0].deltas[1]?.words).toBe("+27.6 pp vs baseline, worse");
    expect(compareRows(ece(0.326, 0.05))[0].deltas[1]?.words).toBe("−27.6 pp vs baseline, better");
  });
});

describe("runTitle", () => {
  it("uses the run's name, else its dataset and model", () => {
    expect(runTitle({ name: "before the swap", dataset: "penguins", model: "m" })).toBe("before the swap");
    expect(runTitle({ name: null, dataset: "penguins", model: "workbench-latest" })).toBe(
      "penguins on workbench-latest",
    );
    expect(runTitle({ name: "  ", dataset: "penguins", model: "m" })).toBe("penguins on m");
  });
});

describe("distinctTitles", () => {
  const run = (id: string, serverName: string, name: string | null = null) => ({
    id,
    name,
    dataset: "penguins",
    model: "workbench-latest",
    serverName,
  });

  it("tells runs with the same title apart by their server, then by their id", () => {
    const t = distinctTitles([
      run("run_a", "Reference server"),
      run("run_b", "Older weights"),
      run("run_c", "Older weights"),
      run("run_d", "Older weights", "after the swap"),
    ]);
    expect(t.get("run_a")).toBe("penguins on workbench-latest · Reference server");
    expect(t.get("run_b")).toBe("penguins on workbench-latest · Older weights · run_b");
    expect(t.get("run_c")).toBe("penguins on workbench-latest · Older weights · run_c");
    expect(t.get("run_d")).toBe("after the swap");
  });

  it("keeps titles that differ as they are", () => {
    const t = distinctTitles([run("run_a", "S", "before"), run("run_b", "S", "after")]);
    expect([...t.values()]).toEqual(["before", "after"]);
  });
});

describe("flipped answers pages and links", () => {
  it("counts the page shown", () => {
    expect(pageText(0, 25, 192)).toBe("1–25 of 192");
    expect(pageText(175, 17, 192)).toBe("176–192 of 192");
    expect(pageText(0, 0, 0)).toBe("0 of 0");
    expect(pageText(0, 25, 1200)).toBe("1–25 of 1,200");
  });

  it("links an example to the page of the run's Items list (filter all) that holds it, selected", () => {
    const at = (position?: number) =>
      new URL(
        exampleLink("run_a", { item: "body_mass", split: "test", exampleId: "penguin-011", position }),
        "http://x",
      );
    const u = at(137);
    expect(u.pathname).toBe("/runs/run_a");
    expect(Object.fromEntries(u.searchParams)).toEqual({
      tab: "items",
      item: "body_mass",
      split: "test",
      filter: "all",
      offset: "100",
      example: "penguin-011",
    });
    expect(at(49).searchParams.get("offset")).toBeNull();
    expect(at(50).searchParams.get("offset")).toBe("50");
    expect(at(undefined).searchParams.get("offset")).toBeNull();
  });
});
