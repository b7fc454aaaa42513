// @vitest-environment node
import { describe, expect, it } from "vitest";
import { cellColor, confusionTable, perOptionTable } from "../src/transforms/confusion";
import { rate } from "./fixtures";

describe("confusionTable", () => {
  it("computes row shares, recall, column totals and the diagonal share", () => {
    const t = confusionTable({
      labels: ["a", "b"],
      matrix: [
        [8, 2],
        [1, 9],
      ],
    });
    expect(t.n).toBe(20);
    expect(t.accuracy).toBeCloseTo(17 / 20);
    expect(t.columnTotals).toEqual([9, 11]);
    expect(t.rows[0].recall).toBeCloseTo(0.8);
    expect(t.rows[0].cells[1]).toMatchObject({ predicted: "b", count: 2, diagonal: false });
    expect(t.rows[0].cells[1].rowShare).toBeCloseTo(0.2);
    expect(t.rows[1].cells[1].diagonal).toBe(true);
  });

  it("handles an empty gold row and rejects a matrix that does not match its labels", () => {
    const t = confusionTable({
      labels: ["a", "b"],
      matrix: [
        [3, 0],
        [0, 0],
      ],
    });
    expect(Number.isNaN(t.rows[1].recall)).toBe(true);
    expect(t.rows[1].cells[0].rowShare).toBe(0);
    expect(() => confusionTable({ labels: ["a", "b"], matrix: [[1, 2]] })).toThrow(/2 x 2/);
  });

  it("colours the diagonal and the errors differently", () => {
    const strong = { predicted: "a", count: 9, rowShare: 0.9, diagonal: true };
    const weak = { predicted: "b", count: 1, rowShare: 0.1, diagonal: false };
    expect(cellColor(strong)).toMatch(/^rgba\(0, 114, 178/);
    expect(cellColor(weak)).toMatch(/^rgba\(213, 94, 0/);
  });
});

describe("perOptionTable", () => {
  it("orders options worst F1 first and averages them", () => {
    const opt = (option: string, p: number, r: number, f1: number, support: number) => ({
      option,
      bins: [],
      precision: p,
      recall: r,
      f1,
      support,
      predicted: support,
      rates: {
        precision: rate(Math.round(p * support), support),
        recall: rate(Math.round(r * support), support),
      },
    });
    const t = perOptionTable([opt("a", 0.9, 0.8, 0.85, 10), opt("b", 0.5, 0.7, 0.58, 30)]);
    expect(t.rows.map((r) => r.option)).toEqual(["b", "a"]);
    expect(t.macro.precision).toBeCloseTo(0.7);
    expect(t.macro.f1).toBeCloseTo((0.85 + 0.58) / 2);
    expect(t.support).toBe(40);
  });
});
