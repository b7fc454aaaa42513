// @vitest-environment node

import type { Calibration, Candidate } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import {
  answeredSentence,
  calibrationItems,
  candidateRows,
  chosenSummary,
  methodChoices,
  newest,
  provenance,
} from "../src/transforms/calibrate";

const ci = (x: number): [number, number, number] => [x, x, x];
const cand = (method: Candidate["method"], over: Partial<Candidate> = {}): Candidate => ({
  method,
  heldOut: {
    nll: ci(0.4),
    brier: ci(0.1),
    ece: ci(0.01),
    accuracy: ci(0.9),
    eceMass: ci(0.012),
    mce: ci(0.05),
  },
  delta: null,
  improvement: null,
  against: null,
  accepted: false,
  chosen: false,
  unknownRate: null,
  warnings: [],
  ...over,
});

describe("candidateRows", () => {
  it("lists candidates simplest first with what the paired rule decided, failed fits last", () => {
    const rows = candidateRows([
      cand("beta", { improvement: [0.001, -0.002, 0.004], against: "platt" }),
      { ...cand("isotonic"), heldOut: null, error: "not tried: isotonic needs at least 100 fit items" },
      cand("platt", { improvement: [0.02, 0.01, 0.03], against: "identity", accepted: true, chosen: true }),
      cand("identity"),
      cand("temperature", { improvement: [-0.02, -0.03, -0.01], against: "identity" }),
    ]);
    expect(rows.map((r) => r.method)).toEqual(["identity", "temperature", "platt", "beta", "isotonic"]);
    expect(rows[0].outcome).toBe("the starting point");
    expect(rows[1].outcome).toBe("worse than identity: NLL gain −0.020 (95% CI −0.030 to −0.010)");
    expect(rows[2].outcome).toBe("replaced identity: NLL gain +0.020 (95% CI +0.010 to +0.030)");
    expect(rows[3].outcome).toBe("indistinguishable from platt: NLL gain +0.001 (95% CI −0.002 to +0.004)");
    expect(rows[4].outcome).toMatch(/^not tried: isotonic needs/);
  });
});

describe("methodChoices", () => {
  it("offers every method, but no vector scaling when a multi-label item is fitted", () => {
    expect(methodChoices(["choice", "yesno"])).toContain("vector");
    expect(methodChoices(["choice", "multi"])).not.toContain("vector");
    expect(methodChoices(["multi"])[0]).toBe("identity");
  });
});

describe("the newest calibration", () => {
  it("finds the newest calibration whatever the list order", () => {
    const list = [
      { id: "b", createdAt: "2026-11-21T10:05:00Z" },
      { id: "c", createdAt: "2026-11-21T10:09:00Z" },
      { id: "a", createdAt: "2026-11-21T10:00:00Z" },
    ];
    expect(newest(list)?.id).toBe("c");
    expect(newest([])).toBeUndefined();
  });
});

function fitted(over: Partial<Calibration> = {}, evalSplit = "test"): Calibration {
  return {
    id: "cal_1",
    runId: "run_1",
    createdAt: "",
    candidates: { q1: [], q2: [] },
    before: {},
    after: {},
    skipped: [],
    imported: false,
    selection: {
      q1: {
        by: "cross-fit",
        on: "calibration",
        folds: 5,
        criterion: "nll",
        verdict: "indistinguishable",
        note: "chosen by 5-fold cross-fitting on calibration; beta indistinguishable from platt",
      },
    },
    warnings: { q1: [] },
    fit: {
      fitSplit: "calibration",
      evalSplit: evalSplit as "test",
      selectionSplit: null,
      method: "auto",
      select: "nll",
      folds: 5,
      targetRisk: 0.05,
      conservative: false,
      estimatedBy: evalSplit === "crossfit" ? "cross-fit" : "evaluation split",
      caveat: null,
      n: { q1: { fit: 412, eval: evalSplit === "crossfit" ? 412 : 398 } },
    },
    file: {
      schema: "decision-workbench/calibration@1",
      created_at: "",
      source: {} as Calibration["file"]["source"],
      questions: {
        q1: {
          kind: "yesno",
          options: ["yes", "no"],
          method: "temperature",
          params: { temperature: 1.834567, nested: { a: 1 } },
          threshold: { target_risk: 0.05, min_confidence: 0.949 },
          metrics: { after: { coverage: [0.08, 0.08, 0.08], answered_error: [0.041, 0.012, 0.098] } },
        },
        q3: { kind: "choice", options: ["a"], method: "identity", params: {} },
      },
    },
    ...over,
  } as Calibration;
}

describe("provenance and the answered-alone sentence", () => {
  it("says where the item was fitted, how its method was chosen and where it was evaluated", () => {
    expect(provenance(fitted(), "q1")).toBe(
      "fitted on calibration (n = 412), method chosen by 5-fold cross-fit on calibration, evaluated once on test (n = 398)",
    );
    expect(provenance(fitted({}, "crossfit"), "q1")).toBe(
      "fitted on calibration (n = 412), method chosen by 5-fold cross-fit on calibration, after-metrics are out-of-fold cross-fit estimates on calibration (n = 412), not untouched held-out data",
    );
    const forced = fitted();
    forced.selection!.q1 = { ...forced.selection!.q1, by: "user", verdict: "forced" };
    expect(provenance(forced, "q1")).toMatch(/method temperature forced by the user/);
    expect(provenance({ ...fitted(), fit: undefined }, "q1")).toBeNull();
    // stored before selection was separated from reporting: said so
    expect(provenance({ ...fitted(), selection: undefined }, "q1")).toBe(
      "fitted on calibration (n = 412), method chosen on test, the split its after-metrics are reported on (n = 398; a calibration from an older version: refit it for untouched numbers)",
    );
  });

  it("puts the share answered alone next to the error it buys", () => {
    expect(answeredSentence(fitted(), "q1")).toBe(
      "escalate below 0.949: 8.0% answered alone (n = 398), error 4.1% (95% CI 1.2%–9.8%)",
    );
    expect(answeredSentence(fitted(), "q3")).toBeNull();
  });
});

describe("chosenSummary and calibrationItems", () => {
  const cal = fitted();

  it("summarises the chosen method, its scalar parameters and the threshold", () => {
    expect(chosenSummary(cal, "q1")).toEqual({
      method: "temperature",
      params: "temperature = 1.83",
      targetRisk: 0.05,
      minConfidence: 0.949,
    });
    expect(chosenSummary(cal, "q3")).toMatchObject({ targetRisk: null, minConfidence: null });
    expect(chosenSummary(cal, "missing")).toBeNull();
  });

  it("lists items from the candidates, then the file's other questions", () => {
    expect(calibrationItems(cal)).toEqual(["q1", "q2", "q3"]);
  });
});
