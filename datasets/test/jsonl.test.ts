import { describe, expect, it } from "vitest";
import type { ParseResult } from "../src/index.js";
import { parseJsonl, splitOf } from "../src/index.js";
import { fixtureBytes, fixtureText, task } from "./fixtures.js";

function failed(r: ParseResult) {
  if (r.ok) throw new Error("expected the parse to fail");
  expect(r).not.toHaveProperty("examples");
  return r;
}

describe("parseJsonl: valid files", () => {
  it("reads every kind of state and label, skips blank lines, fills splits", () => {
    const r = parseJsonl(fixtureText("valid.jsonl"), task);
    if (!r.ok) throw new Error(r.message);
    expect(r.examples.map((e) => e.id)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(Object.keys(r.examples[1].state)).toEqual(["subject", "days late", "country"]);
    expect((r.examples[1].state as Record<string, unknown>)["days late"]).toBe(12);
    expect(r.examples[1].meta).toEqual({ source: "web" });
    expect(r.examples[2].split).toBe("test");
    expect(r.examples[0].split).toBe(splitOf("t1"));
    expect(r.examples[3].labels.topics).toBe("not stated");
  });

  it("accepts CRLF line ends, a byte-order mark and bytes as input", () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fixtureBytes("crlf.jsonl")]);
    const r = parseJsonl(bytes, task);
    if (!r.ok) throw new Error(r.message);
    expect(r.examples.map((e) => e.labels.team)).toEqual(["billing", "returns"]);
  });
});

describe("parseJsonl: each error, located", () => {
  it("unknown item: line, column of the key, and the closest item", () => {
    const r = failed(parseJsonl(fixtureText("unknown-item.jsonl"), task));
    expect(r.errorCount).toBe(1);
    const e = r.errors[0];
    expect(e).toMatchObject({ code: "unknown-item", line: 3, field: "labels.teem", id: "u3" });
    const line = fixtureText("unknown-item.jsonl").split("\n")[2];
    expect(e.column).toBe(line.indexOf('"teem"') + 1);
    expect(e.message).toContain('unknown item "teem" (did you mean "team"?)');
  });

  it("label not among the options: value column, expected options, close match", () => {
    const r = failed(parseJsonl(fixtureText("label-not-option.jsonl"), task));
    expect(r.errors.map((e) => [e.code, e.line, e.field])).toEqual([
      ["label-not-option", 2, "labels.team"],
      ["label-not-option", 3, "labels.urgent"],
      ["label-not-option", 4, "labels.urgent"],
      ["label-not-option", 5, "labels.topics[1]"],
    ]);
    const line2 = fixtureText("label-not-option.jsonl").split("\n")[1];
    expect(r.errors[0].column).toBe(line2.indexOf('"biling"') + 1);
    expect(r.errors[0].message).toBe(
      `line 2, column ${line2.indexOf('"biling"') + 1}, "labels.team": "biling" is not an option of team; expected one of "billing", "shipping", "returns" (did you mean "billing"?)`,
    );
    expect(r.errors[1].message).toContain(
      '"yse" is not an option of urgent; expected one of "yes", "no" (did you mean "yes"?)',
    );
    expect(r.errors[2].message).toContain('"not stated" is not allowed for urgent');
    expect(r.errors[3].message).toContain('(did you mean "account"?)');
  });

  it("multi-label value that is not a list", () => {
    const r = failed(parseJsonl(fixtureText("multi-not-list.jsonl"), task));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "multi-not-list", line: 2, field: "labels.topics" });
    expect(r.errors[0].message).toContain('write ["refund"]');
  });

  it("duplicate id names the line where it first appeared", () => {
    const r = failed(parseJsonl(fixtureText("duplicate-id.jsonl"), task));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "duplicate-id", line: 4, column: 8, id: "d2" });
    expect(r.errors[0].message).toContain("first appeared on line 2");
  });

  it("missing state", () => {
    const r = failed(parseJsonl(fixtureText("missing-state.jsonl"), task));
    expect(r.errors.map((e) => [e.code, e.line])).toEqual([["missing-state", 2]]);
    expect(r.errors[0].message).toMatch(/^line 2: "state" is missing; give the input the service reads/);
  });

  it("empty state: blank string, empty object, empty list", () => {
    const r = failed(parseJsonl(fixtureText("empty-state.jsonl"), task));
    expect(r.errors.map((e) => [e.code, e.line, e.field])).toEqual([
      ["empty-state", 1, "state"],
      ["empty-state", 2, "state"],
      ["empty-state", 3, "state"],
    ]);
  });

  it("non-UTF-8 bytes: the line and character column, with the likely Latin-1 reading", () => {
    const r = failed(parseJsonl(fixtureBytes("invalid-utf8.jsonl"), task));
    expect(r.errors).toHaveLength(1);
    const line3 = '{"id": "b3", "state": "caf';
    expect(r.errors[0]).toMatchObject({ code: "invalid-utf8", line: 3, column: line3.length + 1 });
    expect(r.errors[0].message).toContain('byte 0xE9 is not UTF-8 (in Windows-1252/Latin-1 it would be "é")');
  });

  it("a file over the size limit imports nothing and says by how much", () => {
    const text = fixtureText("valid.jsonl");
    const r = failed(parseJsonl(text, task, { maxBytes: 100 }));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].code).toBe("file-too-large");
    expect(r.errors[0].message).toContain("over the limit of 100 bytes");
    expect(parseJsonl(text, task, { maxBytes: Buffer.byteLength(text) }).ok).toBe(true);
  });

  it("a line that is not JSON: column and what would be right", () => {
    const r = failed(parseJsonl(fixtureText("not-json.jsonl"), task));
    const lines = fixtureText("not-json.jsonl").split("\n");
    expect(r.errors.map((e) => [e.code, e.line])).toEqual([
      ["invalid-json", 2],
      ["invalid-json", 3],
    ]);
    expect(r.errors[0].column).toBe(lines[1].indexOf("billing") + 1);
    expect(r.errors[0].message).toContain(
      'found the bare word billing; strings need double quotes ("billing")',
    );
    expect(r.errors[1].message).toContain("trailing comma");
  });

  it("other shapes: unknown field, wrong types, bad split, a JSON array file", () => {
    const lines = [
      '{"id": "x1", "stat": "a", "labels": {}}',
      '{"id": 7, "state": "a", "labels": {"urgent": true}}',
      '{"id": "x3", "state": 5, "labels": [], "split": "tran", "meta": 1}',
      "[1, 2]",
    ];
    const r = failed(parseJsonl(lines.join("\n"), task));
    const codes = r.errors.map((e) => `${e.line}:${e.code}`);
    expect(codes).toEqual([
      "1:unknown-field",
      "1:missing-state",
      "2:label-not-option",
      "3:invalid-state",
      "3:invalid-labels",
      "3:invalid-meta",
      "3:invalid-split",
      "4:not-an-object",
    ]);
    expect(r.errors[0].message).toContain('(did you mean "state"?)');
    expect(r.errors[2].message).toContain('write "yes"');
    expect(r.errors[6].message).toContain('(did you mean "train"?)');
    const arr = failed(parseJsonl('[\n{"id": "a", "state": "x", "labels": {}}\n]', task));
    expect(arr.errors[0].message).toContain("JSONL needs one example object per line");
  });

  it("lists the first errors of a 10,000-line file and counts the rest", () => {
    const lines: string[] = [];
    for (let i = 1; i <= 10_000; i++)
      lines.push(
        JSON.stringify({
          id: `x${i}`,
          state: "text",
          labels: { team: i % 200 === 0 ? "biling" : "billing" },
        }),
      );
    const r = failed(parseJsonl(lines.join("\n"), task, { source: "big.jsonl" }));
    expect(r.errorCount).toBe(50);
    expect(r.errors).toHaveLength(20);
    expect(r.errors[0].line).toBe(200);
    expect(r.errors[19].line).toBe(4000);
    expect(r.message.split("\n")[0]).toBe("big.jsonl: 50 errors, nothing imported; the first 20:");
    expect(r.message.split("\n").at(-1)).toBe("  ... and 30 more");
    const five = failed(parseJsonl(lines.join("\n"), task, { maxErrors: 5 }));
    expect(five.errors).toHaveLength(5);
    expect(five.errorCount).toBe(50);
  });

  it("rejects an invalid task before reading any line", () => {
    const bad = { ...task, items: [{ name: "x", kind: "choise", question: "?" }] } as unknown as typeof task;
    const r = failed(parseJsonl(fixtureText("valid.jsonl"), bad));
    expect(r.errors[0].code).toBe("invalid-task");
    expect(r.errors[0].message).toContain('(did you mean "choice"?)');
  });
});
