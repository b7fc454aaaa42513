// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  type BuilderValues,
  builderFromJson,
  builderKeyOf,
  buildTask,
  csvTemplate,
  emptyBuilder,
  jsonlTemplate,
  optionLines,
  placeUploadError,
} from "../src/transforms/taskBuilder";

const values: BuilderValues = {
  name: "tickets",
  description: "Which team a ticket goes to.",
  source: "our help desk, 2024",
  licence: "internal",
  labels: "by hand",
  package: "",
  items: [
    {
      name: "team",
      question: "Which team?",
      kind: "choice",
      options: "billing: invoices and refunds\nshipping\n",
      notStated: true,
    },
    { name: "urgent", question: "Is it urgent?", kind: "yesno", options: "", notStated: false },
    {
      name: "mood",
      question: "How upset?",
      kind: "score",
      options: "calm\nannoyed\nangry",
      notStated: false,
    },
    { name: "tags", question: "Which topics?", kind: "multi", options: "refund\ndelay", notStated: false },
  ],
};

describe("buildTask", () => {
  it("makes the API's task: provenance as given, options, levels, not stated", () => {
    const r = buildTask(values);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.task).toEqual({
      name: "tickets",
      description: "Which team a ticket goes to.",
      provenance: { source: "our help desk, 2024", package: "", licence: "internal", labels: "by hand" },
      items: [
        {
          name: "team",
          kind: "choice",
          question: "Which team?",
          options: [{ name: "billing", description: "invoices and refunds" }, "shipping"],
          notStated: true,
        },
        { name: "urgent", kind: "yesno", question: "Is it urgent?" },
        { name: "mood", kind: "score", question: "How upset?", levels: ["calm", "annoyed", "angry"] },
        { name: "tags", kind: "multi", question: "Which topics?", options: ["refund", "delay"] },
      ],
    });
  });

  it("places every problem on its field, as a sentence", () => {
    const r = buildTask({
      ...emptyBuilder(),
      name: "my tickets",
      items: [
        { name: "id", question: "", kind: "choice", options: "a", notStated: false },
        { name: "q", question: "?", kind: "multi", options: "x\nnot stated", notStated: false },
        { name: "q", question: "?", kind: "yesno", options: "no\nyes", notStated: false },
        { name: "s", question: "?", kind: "score", options: "low\nlow", notStated: false },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual({
      name: 'Use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit (the name appears in links).',
      source: "Say where the examples come from.",
      licence: "Give the licence the examples are under.",
      "items.0.name": '"id" is a column of the examples file itself; give the item another name.',
      "items.0.question": "Write the question the service answers about each example.",
      "items.0.options": "Give at least two options, one a line.",
      "items.1.options":
        'Leave "not stated" out of the list and tick "The answer may be not stated" instead.',
      "items.2.name": 'Another item is named "q"; names must differ.',
      "items.2.options":
        'A yes-or-no item\'s options are "yes" then "no"; leave them empty or only add descriptions.',
      "items.3.options": '"low" is listed twice; list each once.',
    });
  });

  it("reads option lines: blank lines left out, a description after ': '", () => {
    expect(optionLines(" a \n\nb: the second\nc:d\n")).toEqual([
      "a",
      { name: "b", description: "the second" },
      "c:d",
    ]);
  });
});

describe("builderFromJson", () => {
  it("reads a task back into the form's values", () => {
    const r = buildTask(values);
    if (!r.ok) throw new Error("the values should make a task");
    const back = builderFromJson(JSON.stringify(r.task));
    expect(back).toEqual({
      ok: true,
      values: {
        ...values,
        items: values.items.map((it) => ({ ...it, options: it.options.trim() })),
      },
    });
  });

  it("says what keeps a text from being read", () => {
    expect(builderFromJson('{"name": ')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^This is not JSON yet/),
    });
    expect(builderFromJson("[]")).toMatchObject({ ok: false });
    // a field the API would refuse (and the form would lose) is named
    expect(
      builderFromJson('{"items": [{"name": "q", "kind": "yesno", "question": "?", "notstated": true}]}'),
    ).toEqual({
      ok: false,
      error:
        'An item has no field "notstated"; its fields are "name", "kind", "question", "options", "levels", "notStated".',
    });
    expect(builderFromJson('{"items": [{"kind": "span"}]}')).toEqual({
      ok: false,
      error: 'An item\'s kind must be one of "choice", "yesno", "score", "multi"; "span" is not.',
    });
  });
});

describe("templates", () => {
  const r = buildTask(values);
  if (!r.ok) throw new Error("the values should make a task");

  it("JSONL: one example a line, each item labelled with its options in turn", () => {
    const lines = jsonlTemplate(r.task)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual({
      id: "example-1",
      state: "Replace this with the text the service reads for example 1.",
      labels: { team: "billing", urgent: "yes", mood: "calm", tags: ["refund"] },
    });
    expect(lines[1].labels).toEqual({ team: "shipping", urgent: "no", mood: "annoyed", tags: ["delay"] });
    expect(lines[2].labels.team).toBe("billing");
  });

  it("CSV: a header with id, state and the items, multi-label options joined by |", () => {
    expect(csvTemplate(r.task).split("\n").slice(0, 3)).toEqual([
      "id,state,team,urgent,mood,tags",
      "example-1,Replace this with the text the service reads for example 1.,billing,yes,calm,refund",
      "example-2,Replace this with the text the service reads for example 2.,shipping,no,annoyed,delay",
    ]);
    const quoted = csvTemplate({
      ...r.task,
      items: [{ name: "q", kind: "choice", question: "?", options: ["a, b", 'say "hi"'] }],
    });
    expect(quoted.split("\n")[1]).toBe(
      'example-1,Replace this with the text the service reads for example 1.,"a, b"',
    );
    expect(quoted.split("\n")[2]).toBe(
      'example-2,Replace this with the text the service reads for example 2.,"say ""hi"""',
    );
  });
});

describe("placeUploadError", () => {
  it("puts the task's problems on the builder's fields, each once", () => {
    const placed = placeUploadError(
      {
        code: "invalid_task",
        message:
          "task items[1].levels: needs at least 2 entries, has 1\ntask provenance.licence: must be a string",
        details: [
          {
            code: "invalid-task",
            field: "items[1].levels",
            message: "task items[1].levels: needs at least 2 entries, has 1",
          },
          {
            code: "invalid-task",
            field: "provenance.licence",
            message: "task provenance.licence: must be a string",
          },
          { code: "invalid-task", field: "colour", message: 'task colour: unknown field "colour"' },
        ],
      },
      values,
    );
    expect(placed.fields).toEqual({
      "items.1.options": "Needs at least 2 entries, has 1.",
      licence: "Must be a string.",
    });
    expect(placed.listed.map((e) => e.field)).toEqual(["colour"]);
    expect(placed.summary).toBe(
      "The task has 3 problems; nothing was stored. Each problem of the task is marked on its field.",
    );
  });

  it("lists the examples' problems by line, and a name in use on the name", () => {
    const placed = placeUploadError(
      {
        code: "invalid_dataset",
        message: "tickets.jsonl: 1 error, nothing imported:\n  line 2, column 3: bad",
        details: [{ code: "invalid-json", line: 2, column: 3, message: "line 2, column 3: bad" }],
      },
      values,
    );
    expect(placed).toEqual({
      summary: "The examples have 1 problem; nothing was stored.",
      fields: {},
      listed: [{ code: "invalid-json", line: 2, column: 3, message: "line 2, column 3: bad" }],
    });
    const taken = placeUploadError(
      {
        code: "dataset_exists",
        message:
          'a dataset named "tickets" is already uploaded; delete it first (DELETE /api/datasets/tickets)',
        details: [],
      },
      values,
    );
    expect(taken.fields).toEqual({
      name: 'A dataset named "tickets" is already uploaded; give yours another name, or delete that one first.',
    });
    expect(taken.summary).not.toContain("/api/");
  });

  it("puts the scorer's refusal of an item on that item, and leaves other refusals unplaced", () => {
    const placed = placeUploadError(
      { code: "invalid_task", message: 'task item "mood": too many levels', details: [] },
      values,
    );
    expect(placed.fields).toEqual({ "items.2.options": "Too many levels." });
    expect(placeUploadError({ code: "too_many_uploads", message: "busy", details: [] }, values)).toEqual({
      summary: "",
      fields: {},
      listed: [],
    });
  });

  it("maps the API's task fields to the builder's", () => {
    expect(builderKeyOf("provenance")).toBe("source");
    expect(builderKeyOf("items[3]")).toBe("items.3.name");
    expect(builderKeyOf("items[0].options[2].name")).toBe("items.0.options");
    expect(builderKeyOf("nonsense")).toBeUndefined();
  });
});
