// @vitest-environment node
import { describe, expect, it } from "vitest";
import type { Calibration, Candidate } from "../src/api/types";
import { calibrationItems, candidateRows, chosenSummary, newest } from "../src/transforms/calibrate";

const ci = (x: number): [number, number, number] => [x, x, x];
const cand = (method: Candidate["method"], nll: number, brier: number, chosen = false): Candidate => ({
  method,
  heldOut: {
    nll: ci(nll),
    brier: ci(brier),
    ece: ci(0.01),
    accuracy: ci(0.9),
    eceMass: ci(0.012),
    mce: ci(0.05),
  },
  delta: null,
  chosen,
  unknownRate: null,
});

describe("candidateRows", () => {
  it("ranks by the selection score", () => {
    const c = [
      cand("identity", 0.4, 0.1),
      cand("temperature", 0.3, 0.12, true),
      cand("isotonic", 0.35, 0.09),
    ];
    expect(candidateRows(c).map((r) => [r.method, r.rank])).toEqual([
      ["temperature", 1],
      ["isotonic", 2],
      ["identity", 3],
    ]);
    expect(candidateRows(c, "brier")[0].method).toBe("isotonic");
  });
});

describe("failed fits and the newest calibration", () => {
  it("puts a candidate whose fit failed last", () => {
    const failed: Candidate = {
      method: "vector",
      heldOut: null,
      delta: null,
      chosen: false,
      unknownRate: null,
      error: "cannot fit",
    };
    expect(candidateRows([failed, cand("identity", 0.4, 0.1)]).map((r) => r.method)).toEqual([
      "identity",
      "vector",
    ]);
  });

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

describe("chosenSummary and calibrationItems", () => {
  const cal = {
    id: "cal_1",
    runId: "run_1",
    createdAt: "",
    candidates: { q1: [], q2: [] },
    before: {},
    after: {},
    skipped: [],
    imported: false,
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
          threshold: { target_risk: 0.05, min_confidence: 0.91 },
        },
        q3: { kind: "choice", options: ["a"], method: "identity", params: {} },
      },
    },
  } as Calibration;

  it("summarises the chosen method, its scalar parameters and the threshold", () => {
    expect(chosenSummary(cal, "q1")).toEqual({
      method: "temperature",
      params: "temperature = 1.835",
      targetRisk: 0.05,
      minConfidence: 0.91,
    });
    expect(chosenSummary(cal, "q3")).toMatchObject({ targetRisk: null, minConfidence: null });
    expect(chosenSummary(cal, "missing")).toBeNull();
  });

  it("lists items from the candidates, then the file's other questions", () => {
    expect(calibrationItems(cal)).toEqual(["q1", "q2", "q3"]);
  });
});
