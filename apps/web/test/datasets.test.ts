// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  formatOf,
  formatValidationError,
  labelCountRows,
  lineColumn,
  sourceAndLicence,
  taskFieldPlace,
  uploadErrorSummary,
  validationErrors,
} from "../src/transforms/datasets";
import { dataset } from "./fixtures";

describe("validation errors", () => {
  it("says where each error is once, as a sentence", () => {
    expect(
      formatValidationError({ line: 3, column: 2, columnName: "label", message: "unknown label 'x'" }),
    ).toBe(`Line 3, column 2 ("label"): Unknown label 'x'.`);
    expect(formatValidationError({ line: 7, field: "labels.species", message: "missing" })).toBe(
      "Line 7: Missing.",
    );
    expect(formatValidationError({ message: "empty file" })).toBe("Empty file.");
    // the API's JSONL message starts with its own place and field: neither is repeated
    expect(
      formatValidationError({
        line: 2,
        column: 40,
        field: "labels.ok",
        message:
          'line 2, column 40, "labels.ok": "perhaps" is not an option of ok; expected one of "yes", "no"',
      }),
    ).toBe('Line 2, column 40: "perhaps" is not an option of ok; expected one of "yes", "no".');
    // and its CSV message: the column's header named once
    expect(
      formatValidationError({
        line: 4,
        column: 3,
        columnName: "team",
        message: 'line 4, column 3 "team": "sales" is not an option of team',
      }),
    ).toBe('Line 4, column 3 ("team"): "sales" is not an option of team.');
  });

  it("reads a task field's place as the form names it", () => {
    expect(
      formatValidationError({
        field: "items[0].options",
        message: "task items[0].options: needs at least 2 entries, has 1",
      }),
    ).toBe("Item 1, options: Needs at least 2 entries, has 1.");
    expect(
      formatValidationError({
        field: "provenance.licence",
        message: "task provenance.licence: must be a string, not a number",
      }),
    ).toBe("Licence: Must be a string, not a number.");
    expect(taskFieldPlace("provenance.labels")).toBe("How the labels were made");
    expect(taskFieldPlace("")).toBe("The task");
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

  it("sums an upload's refusal up without repeating its problems", () => {
    const one = {
      code: "invalid_dataset",
      message: 't.jsonl: 1 error, nothing imported:\n  line 2, column 40, "labels.ok": bad',
    };
    expect(uploadErrorSummary(one, 1)).toBe("The examples have 1 problem; nothing was stored.");
    const many = {
      code: "invalid_dataset",
      message: "t.jsonl: 57 errors, nothing imported; the first 20:\n  line 1: x",
    };
    expect(uploadErrorSummary(many, 20)).toBe(
      "The examples have 57 problems, the first 20 listed here; nothing was stored.",
    );
    expect(
      uploadErrorSummary({ code: "invalid_task", message: "task name: must be a non-empty string" }, 2),
    ).toBe("The task has 2 problems; nothing was stored.");
  });
});

describe("upload helpers", () => {
  it("computes lines and columns from offsets", () => {
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn("ab", 0)).toEqual({ line: 1, column: 1 });
  });

  it("guesses the format from the file name", () => {
    expect(formatOf("Data.CSV")).toBe("csv");
    expect(formatOf("x.jsonl")).toBe("jsonl");
    expect(formatOf("x.txt")).toBeNull();
  });

  it("shows the source and licence given, not the package", () => {
    const provenance = {
      source: "our help desk, 2024",
      package: "tickets.csv",
      licence: "internal",
      labels: "by hand",
    };
    expect(sourceAndLicence({ provenance })).toBe("our help desk, 2024 · internal");
    expect(sourceAndLicence({ provenance: { ...provenance, source: " ", licence: "" } })).toBe(
      "not given · not given",
    );
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
