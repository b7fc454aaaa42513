// @vitest-environment node
import type { ItemRow } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import {
  confidentRows,
  countConfident,
  readConfidentThreshold,
  writeConfidentThreshold,
} from "../src/transforms/confidentWrong";

function row(confidence: number | null, i = 0): ItemRow {
  return {
    exampleId: `e${i}`,
    split: "test",
    state: {},
    gold: "a",
    status: "answered",
    answer: "b",
    confidence,
    probabilities: null,
    correct: false,
    reason: null,
    reasoning: null,
    servedBy: null,
  };
}

/** A fake items endpoint over wrong answers with these confidences (sorted highest first, as the API sorts them). */
function endpoint(confidences: number[]) {
  const rows = [...confidences].sort((a, b) => b - a).map((c, i) => row(c, i));
  const calls: [number, number][] = [];
  const fetchPage = async (offset: number, limit: number) => {
    calls.push([offset, limit]);
    return { total: rows.length, rows: rows.slice(offset, offset + limit) };
  };
  return { fetchPage, calls };
}

describe("confidentRows", () => {
  it("keeps wrong answers at or above the threshold, not every wrong answer", () => {
    // The old list showed all of these, down to 51 %.
    const wrong = [0.97, 0.85, 0.8, 0.79, 0.62, 0.51].map((c, i) => row(c, i));
    expect(confidentRows(wrong, 0.8).map((r) => r.confidence)).toEqual([0.97, 0.85, 0.8]);
    expect(confidentRows(wrong, 0.9).map((r) => r.confidence)).toEqual([0.97]);
    expect(confidentRows(wrong, 0.5)).toHaveLength(6);
    expect(confidentRows([row(null)], 0)).toEqual([]);
  });
});

describe("countConfident", () => {
  it("counts from the first page when the confident prefix ends in it", async () => {
    const e = endpoint([0.99, 0.95, 0.9, 0.7, 0.6, 0.55]);
    expect(await countConfident(e.fetchPage, 0.8, 4)).toBe(3);
    expect(e.calls).toEqual([[0, 4]]);
  });

  it("finds where the prefix ends past the first page with one-row pages", async () => {
    const confidences = Array.from({ length: 1000 }, (_, i) => 1 - i / 1000); // 1.000, 0.999, …, 0.001
    const e = endpoint(confidences);
    expect(await countConfident(e.fetchPage, 0.8, 50)).toBe(201); // 1.000 down to 0.800
    expect(e.calls.length).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(1000)));
    expect(e.calls.slice(1).every(([, limit]) => limit === 1)).toBe(true);
  });

  it("gives every answer when all are confident, and 0 when none are", async () => {
    expect(await countConfident(endpoint([0.99, 0.95, 0.9]).fetchPage, 0.8, 2)).toBe(3);
    expect(await countConfident(endpoint([0.6, 0.55]).fetchPage, 0.8, 2)).toBe(0);
    expect(await countConfident(endpoint([]).fetchPage, 0.8)).toBe(0);
  });
});

describe("the threshold in the URL", () => {
  it("reads a share, falls back to 0.8 and leaves the default out of links", () => {
    expect(readConfidentThreshold(new URLSearchParams(""))).toBe(0.8);
    expect(readConfidentThreshold(new URLSearchParams("confidence=0.9"))).toBe(0.9);
    expect(readConfidentThreshold(new URLSearchParams("confidence=90"))).toBe(0.8);
    expect(readConfidentThreshold(new URLSearchParams("confidence=abc"))).toBe(0.8);
    expect(writeConfidentThreshold(new URLSearchParams("tab=items"), 0.95).toString()).toBe(
      "tab=items&confidence=0.95",
    );
    expect(writeConfidentThreshold(new URLSearchParams("confidence=0.9"), 0.8).toString()).toBe("");
    expect(writeConfidentThreshold(new URLSearchParams(""), 0.12345).get("confidence")).toBe("0.123");
  });
});
