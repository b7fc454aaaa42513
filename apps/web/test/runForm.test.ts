// @vitest-environment node
import { describe, expect, it } from "vitest";
import { defaultRunForm, FIRST_DATASET, parseRunForm, runSize } from "../src/transforms/runForm";
import { dataset, server } from "./fixtures";

const DATASETS = [
  dataset("spam"),
  dataset(FIRST_DATASET, { splits: { train: 163, calibration: 89, test: 0 } }),
];
const EMBEDDED = server({ id: "srv_e", embedded: true, models: ["workbench-latest", "bayes-1"] });
const SERVERS = [server(), EMBEDDED];

describe("defaultRunForm", () => {
  it("starts a newcomer on the first dataset, the embedded server and its first model", () => {
    const v = defaultRunForm(DATASETS, SERVERS);
    expect(v).toMatchObject({ dataset: FIRST_DATASET, serverId: "srv_e", model: "workbench-latest" });
    expect(v.splits).toEqual(["calibration", "test"]);
  });

  it("follows a prefill from the URL when it names what exists", () => {
    const v = defaultRunForm(DATASETS, SERVERS, { dataset: "spam", serverId: "srv_a", model: "m-2" });
    expect(v).toMatchObject({ dataset: "spam", serverId: "srv_a", model: "m-2" });
    const unknown = defaultRunForm(DATASETS, SERVERS, { dataset: "nope", model: "nope" });
    expect(unknown).toMatchObject({ dataset: FIRST_DATASET, model: "workbench-latest" });
  });
});

describe("parseRunForm", () => {
  it("builds the POST /api/runs body with the server options that were set", () => {
    const v = {
      ...defaultRunForm(DATASETS, SERVERS, { dataset: "spam" }),
      limit: "25",
      concurrency: "4",
      maxThink: "256",
      nothinkThreshold: "0.9",
      think: "off" as const,
    };
    const r = parseRunForm(v, DATASETS, SERVERS);
    expect(r).toEqual({
      ok: true,
      input: {
        dataset: "spam",
        serverId: "srv_e",
        model: "workbench-latest",
        splits: ["calibration", "test"],
        concurrency: 4,
        limit: 25,
        options: { max_think: 256, nothink_threshold: 0.9, return_reasoning: true, think: false },
      },
    });
  });

  it("sends the caps that were set, and says what is wrong with a bad one", () => {
    const base = defaultRunForm(DATASETS, SERVERS, { dataset: "spam" });
    const r = parseRunForm({ ...base, maxCost: "2.5", maxInputTokens: "500,000" }, DATASETS, SERVERS);
    expect(r.ok && [r.input.maxCost, r.input.maxInputTokens]).toEqual([2.5, 500000]);
    const none = parseRunForm(base, DATASETS, SERVERS);
    expect(none.ok && "maxCost" in none.input).toBe(false);
    const bad = parseRunForm({ ...base, maxCost: "0", maxInputTokens: "many" }, DATASETS, SERVERS);
    expect(!bad.ok && bad.errors.maxCost).toBe(
      'Max cost must be a number above 0 (e.g. 2.5), or empty for none; got "0"',
    );
    expect(!bad.ok && bad.errors.maxInputTokens).toMatch(/Max input tokens must be a number above 0/);
  });

  it("says what is wrong: unknown dataset, no split, bad numbers", () => {
    const v = {
      ...defaultRunForm(DATASETS, SERVERS),
      dataset: "nope",
      splits: [],
      concurrency: "300",
      limit: "0",
      maxThink: "-1",
      nothinkThreshold: "2",
    };
    const r = parseRunForm(v, DATASETS, SERVERS);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.dataset).toMatch(/No dataset named “nope”/);
    expect(r.errors.splits).toMatch(/at least one split/);
    expect(r.errors.concurrency).toMatch(/1 to 256/);
    expect(r.errors.limit).toMatch(/from 1/);
    expect(r.errors.maxThink).toMatch(/max_think/);
    expect(r.errors.nothinkThreshold).toMatch(/0 to 1/);
  });

  it("refuses a split the dataset does not have", () => {
    const r = parseRunForm(defaultRunForm(DATASETS, SERVERS), DATASETS, SERVERS);
    expect(!r.ok && r.errors.splits).toMatch(/test split of penguins has no examples/);
  });
});

describe("runSize", () => {
  it("adds the chosen splits, cut at the limit", () => {
    const v = {
      ...defaultRunForm(DATASETS, SERVERS, { dataset: "spam" }),
      splits: ["calibration" as const, "test" as const],
    };
    expect(runSize(v, DATASETS[0])).toBe(200);
    expect(runSize({ ...v, limit: "30" }, DATASETS[0])).toBe(60);
    expect(runSize(v, undefined)).toBe(0);
  });
});
