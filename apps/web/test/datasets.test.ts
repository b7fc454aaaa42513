// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  formatOf,
  formatValidationError,
  labelCountRows,
  lineColumn,
  parseUpload,
  validationErrors,
} from "../src/transforms/datasets";
import { dataset } from "./fixtures";

describe("validation errors", () => {
  it("says where each error is", () => {
    expect(
      formatValidationError({ line: 3, column: 2, columnName: "label", message: "unknown label 'x'" }),
    ).toBe("Line 3, column 2 (label): unknown label 'x'");
    expect(formatValidationError({ line: 7, field: "labels.species", message: "missing" })).toBe(
      "Line 7 (labels.species): missing",
    );
    expect(formatValidationError({ message: "empty file" })).toBe("empty file");
    expect(
      formatValidationError({
        line: 2,
        column: 40,
        field: "labels.ok",
        message: 'line 2, column 40, "labels.ok": "perhaps" is not an option',
      }),
    ).toBe('Line 2, column 40 (labels.ok): "labels.ok": "perhaps" is not an option');
  });

  it("keeps only error-shaped details, sorted by line then column", () => {
    const errs = validationErrors([
      { line: 9, message: "b" },
      "junk",
      null,
      { line: 2, column: 5, message: "a2" },
      { line: 2, column: 1, message: "a1" },
    ]);
    expect(errs.map((e) => e.message)).toEqual(["a1", "a2", "b"]);
  });
});

describe("parseUpload", () => {
  const task = JSON.stringify({
    name: "t",
    description: "d",
    items: [{ name: "q", kind: "yesno", question: "?" }],
  });

  it("passes a task and content through", () => {
    const r = parseUpload({ taskText: task, format: "csv", content: "state,q\nhello,yes\n" });
    expect(r.ok && r.body.format).toBe("csv");
    expect(r.ok && r.body.task.name).toBe("t");
  });

  it("locates a JSON syntax error in the task by line and column", () => {
    const r = parseUpload({ taskText: '{\n  "name": "t",\n  oops\n}', format: "jsonl", content: "{}" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0].message).toMatch(/not valid JSON/);
    expect(r.errors[0].line).toBe(3);
  });

  it("asks for a name, items and data", () => {
    const r = parseUpload({ taskText: "{}", format: "jsonl", content: "  " });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.field)).toEqual(["task.name", "task.items", "data"]);
  });

  it("computes lines and columns from offsets", () => {
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn("ab", 0)).toEqual({ line: 1, column: 1 });
  });

  it("guesses the format from the file name", () => {
    expect(formatOf("Data.CSV")).toBe("csv");
    expect(formatOf("x.jsonl")).toBe("jsonl");
    expect(formatOf("x.txt")).toBeNull();
  });
});

describe("labelCountRows", () => {
  it("pivots counts to one row per label with a column per split, in option order", () => {
    const d = {
      ...dataset("d", { items: [{ name: "q", kind: "choice", options: ["b", "a"], notStated: true }] }),
      labelCounts: [
        { item: "q", split: "train" as const, label: "a", count: 3 },
        { item: "q", split: "test" as const, label: "a", count: 1 },
        { item: "q", split: "train" as const, label: "b", count: 2 },
        { item: "q", split: "calibration" as const, label: "not stated", count: 4 },
      ],
    };
    const rows = labelCountRows(d);
    expect(rows.map((r) => r.label)).toEqual(["b", "a", "not stated"]);
    expect(rows[1]).toEqual({ item: "q", label: "a", train: 3, calibration: 0, test: 1, total: 4 });
  });
});
