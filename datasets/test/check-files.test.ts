import { describe, expect, it } from "vitest";
import { checkCsv, checkJsonl, datasetHash, datasetHashOf, parseCsv, parseJsonl } from "../src/index.js";
import { fixtureBytes, fixtureText, task } from "./fixtures.js";

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** valid.jsonl with its lines in another order, a CRLF line, a state with integer-like keys and a leading BOM. */
function tricky(): Uint8Array {
  const lines = fixtureText("valid.jsonl")
    .split("\n")
    .filter((l) => l.trim() !== "");
  const extra = JSON.stringify({ id: "a0", state: "x", labels: JSON.parse(lines[0]).labels }).replace(
    '"state":"x"',
    '"state":{"zeta":1,"2":"two","alpha":{"10":true,"b":null}}',
  );
  return Buffer.concat([
    BOM,
    Buffer.from([lines[3], `${extra}\r`, lines[1], "", lines[0], lines[2], ""].join("\n")),
  ]);
}

describe("checkJsonl: the same file as parseJsonl, without holding its examples", () => {
  it("gives parseJsonl's examples one at a time, in file order, and the same dataset hash", () => {
    const parsed = parseJsonl(tricky(), task);
    if (!parsed.ok) throw new Error(parsed.message);
    const checked = checkJsonl(tricky(), task);
    if (!checked.ok) throw new Error(checked.message);
    // read from the bytes (each line decoded as it is read) or from the decoded text: the same examples
    expect(parseJsonl(Buffer.from(tricky()).toString("utf8"), task)).toEqual(parsed);
    expect(checkJsonl(Buffer.from(tricky()).toString("utf8"), task)).toMatchObject({ ids: checked.ids });
    expect(checked.ids).toEqual(parsed.examples.map((e) => e.id));
    expect(checked.splits).toEqual(parsed.examples.map((e) => e.split));
    parsed.examples.forEach((e, k) => {
      expect(checked.example(k)).toEqual(e);
    });
    // the state's own key order survives the second reading, and the hash reads it
    const withOrder = parsed.examples.find((e) => e.id === "a0");
    expect(withOrder?.stateJson).toBe('{"zeta":1,"2":"two","alpha":{"10":true,"b":null}}');
    expect(checked.example(1).stateJson).toBe(withOrder?.stateJson);
    // a row that is not there is an error that says so, not an undefined example
    expect(() => checked.example(checked.ids.length)).toThrow(/row 5 of 5 read again is not the example/);
    const hash = datasetHashOf(task, checked.ids, checked.example);
    expect(hash).toBe(datasetHash(task, parsed.examples));
    // the ids are out of order in the file: hashing in file order would differ
    expect(hash).not.toBe(
      datasetHashOf(
        task,
        checked.ids.map((_, k) => String(k).padStart(3, "0")),
        checked.example,
      ),
    );
  });

  it("refuses what parseJsonl refuses, with the same errors", () => {
    for (const name of ["duplicate-id.jsonl", "invalid-utf8.jsonl", "not-json.jsonl", "unknown-item.jsonl"]) {
      const parsed = parseJsonl(fixtureBytes(name), task, { source: name });
      const checked = checkJsonl(fixtureBytes(name), task, { source: name });
      expect(parsed.ok, name).toBe(false);
      expect(checked, name).toEqual(parsed);
    }
    const tooLarge = checkJsonl(tricky(), task, { maxBytes: 100 });
    expect(tooLarge.ok).toBe(false);
    if (!tooLarge.ok) expect(tooLarge.message).toMatch(/over the limit of 100 bytes/);
  });
});

describe("checkCsv: the same file as parseCsv, without holding its examples", () => {
  it("gives parseCsv's examples one at a time, quoted line breaks and integer-like state columns included", () => {
    const text = [
      "id,state.text,state.2,team,urgent,topics,split",
      'c9,"two\r\nlines, ""quoted""",x,billing,yes,refund|delivery,test',
      "c1,plain,1,returns,no,,train",
      "",
      'c5,"a,b",,billing,no,not stated,calibration',
    ].join("\r\n");
    const tricky = {
      ...task,
      items: task.items.filter((i) => ["team", "urgent", "topics"].includes(i.name)),
    };
    const parsed = parseCsv(text, tricky);
    if (!parsed.ok) throw new Error(parsed.message);
    const checked = checkCsv(Buffer.from(text), tricky);
    if (!checked.ok) throw new Error(checked.message);
    expect(checked.ids).toEqual(["c9", "c1", "c5"]);
    expect(checked.splits).toEqual(parsed.examples.map((e) => e.split));
    parsed.examples.forEach((e, k) => {
      expect(checked.example(k)).toEqual(e);
    });
    expect(checked.example(0).state).toMatchObject({ text: 'two\r\nlines, "quoted"' });
    expect(checked.example(0).stateJson).toBe('{"text":"two\\r\\nlines, \\"quoted\\"","2":"x"}');
    expect(datasetHashOf(tricky, checked.ids, checked.example)).toBe(datasetHash(tricky, parsed.examples));
    const valid = checkCsv(fixtureText("valid.csv"), task);
    const whole = parseCsv(fixtureText("valid.csv"), task);
    if (!valid.ok || !whole.ok) throw new Error("valid.csv should be valid");
    expect(whole.examples.map((_, k) => valid.example(k))).toEqual(whole.examples);
  });

  it("refuses what parseCsv refuses, with the same errors in the same order", () => {
    for (const name of ["bad-quote.csv", "ragged.csv"]) {
      const parsed = parseCsv(fixtureBytes(name), task, { source: name });
      expect(parsed.ok, name).toBe(false);
      expect(checkCsv(fixtureBytes(name), task, { source: name }), name).toEqual(parsed);
    }
    expect(checkCsv("", task)).toMatchObject({ ok: false, errorCount: 1 });
  });
});
