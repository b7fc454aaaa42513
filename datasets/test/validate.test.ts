import { describe, expect, it } from "vitest";
import type { Example, Task } from "../src/index.js";
import { parseTask, parseTaskJson, validateDataset, validateTask } from "../src/index.js";
import { fixtureText, task } from "./fixtures.js";

const ok: Example = { id: "a", state: "text", labels: { team: "billing" }, split: "train" };

describe("validateDataset", () => {
  it("is empty for good examples", () => {
    expect(
      validateDataset(task, [ok, { ...ok, id: "b", labels: { topics: ["refund"], country: "not stated" } }]),
    ).toEqual([]);
  });

  it("locates each error by index and id", () => {
    const errs = validateDataset(task, [
      ok,
      { ...ok, id: "b", labels: { teem: "billing" } },
      { ...ok, id: "a" },
      { ...ok, id: "c", state: "" },
      { ...ok, id: "d", labels: { topics: "refund" } },
      { id: "e", labels: {}, split: "train" } as unknown as Example,
      { ...ok, id: "f", split: "dev" as Example["split"] },
      { id: "g", state: "x", labels: {} } as unknown as Example,
    ]);
    expect(errs.map((e) => [e.index, e.code])).toEqual([
      [1, "unknown-item"],
      [2, "duplicate-id"],
      [3, "empty-state"],
      [4, "multi-not-list"],
      [5, "missing-state"],
      [6, "invalid-split"],
      [7, "invalid-split"],
    ]);
    expect(errs[0].message).toBe(
      'examples[1] (id "b"), "labels.teem": unknown item "teem" (did you mean "team"?); the task\'s items are "team", "urgent", "severity", "topics", "country"',
    );
    expect(errs[1].message).toContain("first appeared at examples[0]");
  });
});

describe("validateTask", () => {
  it("accepts the fixture task and every bundled-style option shape", () => {
    expect(validateTask(task)).toEqual([]);
    expect(parseTask(task)).toEqual({ ok: true, task });
  });

  it("names each problem by its path", () => {
    const bad = {
      name: "",
      description: "d",
      provenance: { source: "s", package: "p", licence: "l" },
      items: [
        { name: "a", kind: "choice", question: "q", options: ["x"] },
        { name: "a", kind: "score", question: "q", options: ["x", "y"] },
        { name: "b", kind: "multi", question: "q", options: ["x", "x", "not stated"], notstated: true },
        { name: "c", kind: "yesno", question: "q", options: ["no", "yes"] },
        { name: "d", kind: "choise", question: "" },
      ],
    };
    const msgs = validateTask(bad).map((e) => e.message);
    expect(msgs).toEqual([
      "task name: must be a non-empty string",
      "task provenance.labels: must be a string, not undefined",
      "task items[0].options: needs at least 2 entries, has 1",
      'task items[1].name: item "a" appears twice; item names must be unique',
      'task items[1].levels: must be a list of options (names, or {"name", "description"} objects), not undefined',
      'task items[1].options: a score item has "levels" (lowest to highest), not "options"',
      'task items[2].notstated: unknown field "notstated" (did you mean "notStated"?); an item has "name", "kind", "question", "options", "levels", "notStated"',
      'task items[2].options[1]: option "x" appears twice; option names must be unique',
      'task items[2].options[2]: "not stated" is reserved; set "notStated": true on the item instead',
      'task items[3].options: a yesno item\'s options must be "yes" then "no" (with descriptions); leave them out for defaults',
      "task items[4].question: must be a non-empty string",
      'task items[4].kind: must be one of "choice", "yesno", "score", "multi" (did you mean "choice"?), not the string "choise"',
    ]);
    const parsed = parseTask(bad as unknown as Task);
    expect(parsed.ok).toBe(false);
  });
});

describe("parseTaskJson", () => {
  it("parses a task file and locates JSON syntax errors by line and column", () => {
    const good = parseTaskJson(fixtureText("task.json"));
    expect(good.ok).toBe(true);
    const r = parseTaskJson('{\n  "name": "x",\n  "items": [\n    {"name": "a",}\n  ]\n}');
    if (r.ok) throw new Error("expected a syntax error");
    expect(r.errors[0]).toMatchObject({ code: "invalid-json", line: 4, column: 18 });
    expect(r.message).toBe(
      'line 4, column 18: not valid JSON: a trailing comma before "}": remove the last comma',
    );
  });
});
