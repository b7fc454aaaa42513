import { describe, expect, it } from "vitest";
import type { ParseResult } from "../src/index.js";
import { parseCsv, splitOf } from "../src/index.js";
import { fixtureText, task } from "./fixtures.js";

function failed(r: ParseResult) {
  if (r.ok) throw new Error("expected the parse to fail");
  expect(r).not.toHaveProperty("examples");
  return r;
}

describe("parseCsv: valid files", () => {
  it("builds mapping states in column order, keeps numbers numbers, splits multi-labels on |", () => {
    const r = parseCsv(fixtureText("valid.csv"), task);
    if (!r.ok) throw new Error(r.message);
    const [c1, c2, c3] = r.examples;
    expect(c1.state).toEqual({ subject: "Where is my parcel?", "days late": 12, country: "DE" });
    expect(Object.keys(c1.state)).toEqual(["subject", "days late", "country"]);
    expect(c1.labels).toEqual({
      team: "shipping",
      urgent: "yes",
      topics: ["delivery", "refund"],
      country: "DE",
    });
    expect(c1.meta).toEqual({ source: "web" });
    expect(c1.split).toBe(splitOf("c1"));
    // A quoted comma stays in the value; an empty state.<field> cell leaves the key out.
    expect(c2.state).toEqual({ subject: "Charged twice, please help", "days late": 0.5 });
    expect(c2.labels).toEqual({ team: "billing", topics: ["refund"], country: "not stated" });
    expect(c2.split).toBe("test");
    expect(c2.meta).toBeUndefined();
    // A quoted value may span lines and hold doubled quotes; "007" is not a JSON number, so it stays text.
    expect(c3.state).toEqual({ subject: 'He said "hi"\nand left', "days late": "007" });
    expect(c3.labels).toEqual({ urgent: "no", topics: [], country: "FR" });
  });

  it("a single state column gives a string state; a quoted number stays a string", () => {
    const r = parseCsv('id,state,team\r\nx1,"42",billing\r\nx2,plain text,returns\r\n', task);
    if (!r.ok) throw new Error(r.message);
    expect(r.examples.map((e) => e.state)).toEqual(["42", "plain text"]);
    const m = parseCsv('id,state.n,state.q,team\nx1,42,"42",billing\n', task);
    if (!m.ok) throw new Error(m.message);
    expect(m.examples[0].state).toEqual({ n: 42, q: "42" });
  });
});

describe("parseCsv: errors, located by line and column name", () => {
  it("ragged rows: the line, the field counts and the hint about commas", () => {
    const r = failed(parseCsv(fixtureText("ragged.csv"), task));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "csv-ragged-row", line: 3 });
    expect(r.errors[0].message).toBe(
      'line 3: this row has 4 fields but the header has 3 ("id", "state", "team"); a value containing a comma must be in double quotes',
    );
  });

  it("quote mistakes", () => {
    const r = failed(parseCsv(fixtureText("bad-quote.csv"), task));
    expect(r.errors.map((e) => [e.code, e.line, e.column, e.columnName])).toEqual([
      ["csv-quote", 2, 2, "state"],
      ["csv-quote", 3, 2, "state"],
    ]);
    const open = failed(parseCsv('id,state,team\nq1,"never closed,billing\nq2,x,billing\n', task));
    expect(open.errors[0].message).toContain("never closed");
    expect(open.errors[0].line).toBe(2);
  });

  it("labels and ids: column number and name, duplicates name the first line", () => {
    const csv =
      "id,state,team,topics,urgent\nk1,a,biling,refund,yes\nk2,b,billing,refund|acount,yes\nk1,c,returns,,Yes\n,d,returns,,\n";
    const r = failed(parseCsv(csv, task));
    expect(r.errors.map((e) => [e.line, e.code, e.column, e.columnName])).toEqual([
      [2, "label-not-option", 3, "team"],
      [3, "label-not-option", 4, "topics"],
      [4, "label-not-option", 5, "urgent"],
      [4, "duplicate-id", 1, "id"],
      [5, "missing-id", 1, "id"],
    ]);
    expect(r.errors[0].message).toBe(
      'line 2, column 3 "team": "biling" is not an option of team; expected one of "billing", "shipping", "returns" (did you mean "billing"?)',
    );
    expect(r.errors[2].message).toContain('(did you mean "yes"?)');
    expect(r.errors[3].message).toContain("first appeared on line 2");
    expect(r.errors[4].message).toContain('the "id" cell is empty');
  });

  it("counts lines through quoted values that span lines", () => {
    const r = failed(parseCsv('id,state,team\r\nm1,"a\r\nb\nc",billing\r\nm2,x,biling\r\n', task));
    expect(r.errors.map((e) => [e.line, e.code])).toEqual([[5, "label-not-option"]]);
  });

  it("empty states: an empty state cell, or every state.<field> cell empty", () => {
    const r = failed(parseCsv('id,state,team\ne1,"",billing\n', task));
    expect(r.errors[0]).toMatchObject({ code: "empty-state", line: 2, columnName: "state" });
    const m = failed(parseCsv("id,state.a,state.b,team\ne1,,,billing\n", task));
    expect(m.errors[0]).toMatchObject({ code: "empty-state", line: 2, columnName: "state.a" });
  });

  it("header problems: unknown columns with suggestions, no id, no state, both kinds of state", () => {
    const r = failed(parseCsv("ident,state,teem\nx,y,z\n", task));
    expect(r.errors.map((e) => e.message)).toEqual([
      'line 1, column 1 "ident": unknown column "ident" (did you mean "id"?); columns are "id", "state" or "state.<field>", "split", "meta.<field>" and the items "team", "urgent", "severity", "topics", "country"',
      'line 1, column 3 "teem": unknown column "teem" (did you mean "team"?); columns are "id", "state" or "state.<field>", "split", "meta.<field>" and the items "team", "urgent", "severity", "topics", "country"',
      'line 1: the header has no "id" column; the first row names the columns, e.g. id,state,team',
    ]);
    expect(failed(parseCsv("id,team\nx,billing\n", task)).errors[0].message).toContain('no "state" column');
    expect(failed(parseCsv("id,state,state.a\nx,y,z\n", task)).errors[0].message).toContain("not both");
    expect(failed(parseCsv("id,state,state\nx,y,z\n", task)).errors[0].message).toContain("used twice");
    expect(failed(parseCsv("", task)).errors[0].code).toBe("csv-header");
  });

  it("non-UTF-8 bytes and the size limit apply to CSV too", () => {
    const bytes = Buffer.concat([
      Buffer.from("id,state,team\nx1,caf"),
      Buffer.from([0xe9]),
      Buffer.from(",billing\n"),
    ]);
    const r = failed(parseCsv(bytes, task));
    expect(r.errors).toEqual([expect.objectContaining({ code: "invalid-utf8", line: 2, column: 7 })]);
    expect(failed(parseCsv(fixtureText("valid.csv"), task, { maxBytes: 10 })).errors[0].code).toBe(
      "file-too-large",
    );
  });
});
