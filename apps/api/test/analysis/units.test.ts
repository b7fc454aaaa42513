import { describe, expect, it } from "vitest";
import {
  csvCell,
  csvHeader,
  csvLine,
  EXPORT_COLUMNS,
  exportRow,
  reasoningText,
} from "../../src/analysis/export.js";
import { inferSpec } from "../../src/analysis/item-spec.js";
import { autoResamples } from "../../src/analysis/metrics.js";
import { sampleIndices } from "../../src/analysis/selective.js";
import type { PredictionRow } from "../../src/storage/types.js";
import { parseCsv } from "./csv.js";

const base: PredictionRow = {
  runId: "run_x",
  exampleId: "e,1",
  split: "test",
  item: "properties",
  gold: ["link", "quote"],
  status: "answered",
  answer: ["link"],
  confidence: 0.5372,
  probabilities: { link: 0.8581, quote: 0.4177 },
  logits: [1.8, -0.33],
  unknown: null,
  reason: null,
  record: {
    endpoint: "http://127.0.0.1:9/v1/decision",
    model: "m",
    served_by: "bayes-2",
    ms: 31.5,
    questions: 2,
    usage: { input_tokens: 512, output_tokens: 12 },
    reasoning: {
      link: { text: 'has "http", a link,\r\nand more', tokens: 3, thought: true },
      quote: { text: "no > quote", tokens: 2, thought: false },
    },
  },
  servedBy: "bayes-2",
};

describe("exports", () => {
  it("writes CSV cells that read back to the same values, whatever the text holds", () => {
    const rows = [
      base,
      {
        ...base,
        exampleId: 'q"uote',
        item: "is_spam",
        gold: "yes",
        answer: null,
        status: "escalated" as const,
        confidence: null,
        probabilities: null,
        reason: "the decision service refused the request: HTTP 422, bad",
        record: { endpoint: "http://127.0.0.1:9/v1/decision", model: "m", ms: 1e-7, questions: 1 },
      },
      { ...base, exampleId: "multi\nline", gold: [], answer: [], confidence: 1 },
    ];
    const text = csvHeader() + rows.map((r) => csvLine(exportRow(r))).join("");
    expect(parseCsv(text)).toEqual(JSON.parse(JSON.stringify(rows.map(exportRow))));
    expect(text.split("\r\n")[0]).toBe(EXPORT_COLUMNS.join(","));
  });

  it("keeps only the whitelisted fields", () => {
    const leaky = {
      ...base,
      apiKey: "sk-secret",
      record: { ...base.record, authorization: "Bearer sk-secret" },
    };
    const row = exportRow(leaky as PredictionRow);
    expect(Object.keys(row)).toEqual([...EXPORT_COLUMNS]);
    expect(JSON.stringify(row)).not.toContain("sk-secret");
  });

  it("quotes exactly the cells that need it", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell(null)).toBe("");
    expect(csvCell(0.1 + 0.2)).toBe("0.30000000000000004");
    expect(csvCell(["a", "b"])).toBe('"[""a"",""b""]"');
  });

  it("turns per-option reasoning into one text", () => {
    expect(reasoningText(base.record)).toBe('link: has "http", a link,\r\nand more\n\nquote: no > quote');
    expect(reasoningText({ ...base.record, reasoning: { text: "single", tokens: 1, thought: false } })).toBe(
      "single",
    );
    expect(reasoningText({ ...base.record, reasoning: undefined })).toBeNull();
  });
});

describe("small pieces", () => {
  it("keeps 1000 resamples up to 10,000 rows and about 1e7 draws above, never under 200", () => {
    expect(autoResamples(300)).toBe(1000);
    expect(autoResamples(10_000)).toBe(1000);
    expect(autoResamples(20_000)).toBe(500);
    expect(autoResamples(100_000)).toBe(200);
    expect(autoResamples(5_000_000)).toBe(200);
  });

  it("samples curves evenly with both ends", () => {
    expect(sampleIndices(5, 101)).toEqual([0, 1, 2, 3, 4]);
    const s = sampleIndices(1000, 101);
    expect(s).toHaveLength(101);
    expect(s[0]).toBe(0);
    expect(s[100]).toBe(999);
  });

  it("infers an item from its rows when the task is gone", () => {
    expect(inferSpec("properties", [base])).toEqual({
      name: "properties",
      kind: "multi",
      options: ["link", "quote"],
      notStated: false,
    });
    const yes = { ...base, gold: "no", answer: "yes", probabilities: { yes: 0.7, no: 0.3 } };
    expect(inferSpec("is_spam", [yes]).kind).toBe("yesno");
    const ns = { ...yes, probabilities: { female: 0.2, male: 0.3, "not stated": 0.5 } };
    expect(inferSpec("sex", [ns])).toMatchObject({
      kind: "choice",
      options: ["female", "male"],
      notStated: true,
    });
  });
});

describe("ci=all", () => {
  it("is refused on an item too large to resample every secondary metric, before any work", async () => {
    const { itemData } = await import("../../src/analysis/matrix.js");
    const { itemReport } = await import("../../src/analysis/report.js");
    const { TooLargeError } = await import("../../src/analysis/metrics.js");
    const options = ["a", "b", "c", "d", "e"];
    const rows: PredictionRow[] = Array.from({ length: 90_000 }, (_, i) => ({
      ...base,
      exampleId: `e${i}`,
      item: "x",
      gold: options[i % 5],
      answer: "a",
      probabilities: { a: 0.6, b: 0.1, c: 0.1, d: 0.1, e: 0.1 },
    }));
    const d = itemData({ name: "x", kind: "choice", options, notStated: false }, rows);
    expect(() => itemReport(d, "test", { ci: "all" })).toThrow(TooLargeError);
    expect(() => itemReport(d, "test", { ci: "all" })).toThrow(/use ci=auto or ci=headline/);
  });
});
