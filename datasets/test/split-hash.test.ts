import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Example, Task } from "../src/index.js";
import { canonicalDataset, datasetHash, parseJsonl, splitOf } from "../src/index.js";
import { fixtureText, task } from "./fixtures.js";

describe("splitOf", () => {
  it("is fixed by the id (golden values)", () => {
    expect(["a", "b", "ca01", "héllo"].map(splitOf)).toEqual(["test", "train", "calibration", "train"]);
  });

  it("gives 50 / 25 / 25 % over many ids, within 4 standard deviations", () => {
    const n = 40_000;
    const counts = { train: 0, calibration: 0, test: 0 };
    for (let i = 0; i < n; i++) counts[splitOf(`example-${i}`)]++;
    const within = (count: number, p: number) => Math.abs(count / n - p) <= 4 * Math.sqrt((p * (1 - p)) / n);
    expect(within(counts.train, 0.5)).toBe(true);
    expect(within(counts.calibration, 0.25)).toBe(true);
    expect(within(counts.test, 0.25)).toBe(true);
  });
});

function examples(): Example[] {
  const r = parseJsonl(fixtureText("valid.jsonl"), task);
  if (!r.ok) throw new Error(r.message);
  return r.examples;
}

describe("datasetHash", () => {
  it("is stable (golden value for the fixture file)", () => {
    expect(datasetHash(task, examples())).toBe(
      "41171f40cf0d0cc7c4fc0150bea1c3102025087a5b45e2353bc5953c811776ef",
    );
  });

  it("is the SHA-256 of canonicalDataset", () => {
    const text = canonicalDataset(task, examples());
    expect(datasetHash(task, examples())).toBe(createHash("sha256").update(text).digest("hex"));
  });

  it("ignores example order, label key order, multi-label order and task key order", () => {
    const base = datasetHash(task, examples());
    expect(datasetHash(task, examples().reverse())).toBe(base);
    const ex = examples();
    ex[0] = { ...ex[0], labels: Object.fromEntries(Object.entries(ex[0].labels).reverse()) };
    expect(datasetHash(task, ex)).toBe(base);
    const shuffledTask = Object.fromEntries(Object.entries(task).reverse()) as unknown as Task;
    expect(datasetHash(shuffledTask, examples())).toBe(base);
    const two = examples();
    two[1] = { ...two[1], labels: { ...two[1].labels, topics: ["refund", "delivery"] } };
    const swapped = examples();
    swapped[1] = { ...swapped[1], labels: { ...swapped[1].labels, topics: ["delivery", "refund"] } };
    expect(datasetHash(task, two)).toBe(datasetHash(task, swapped));
  });

  it("changes with a mapping state's key order, a label, a split or the task", () => {
    const base = datasetHash(task, examples());
    const ex = examples();
    const s = ex[1].state as Record<string, unknown>;
    ex[1] = { ...ex[1], state: Object.fromEntries(Object.entries(s).reverse()) };
    expect(datasetHash(task, ex)).not.toBe(base);
    const label = examples();
    label[0] = { ...label[0], labels: { ...label[0].labels, team: "returns" } };
    expect(datasetHash(task, label)).not.toBe(base);
    const split = examples();
    split[0] = { ...split[0], split: split[0].split === "test" ? "train" : "test" };
    expect(datasetHash(task, split)).not.toBe(base);
    expect(datasetHash({ ...task, description: "other" }, examples())).not.toBe(base);
  });

  it("canonical text: sorted keys outside the state, state as given", () => {
    const t: Task = {
      name: "t",
      description: "d",
      provenance: { source: "s", package: "p", licence: "l", labels: "x" },
      items: [{ name: "c", kind: "choice", question: "q", options: ["a", "b"] }],
    };
    const e: Example = {
      split: "train",
      labels: { c: "a" },
      state: { z: 1, a: [2, { y: 1, b: 2 }] },
      id: "1",
    };
    expect(canonicalDataset(t, [e])).toBe(
      '{"examples":[{"id":"1","labels":{"c":"a"},"split":"train","state":{"z":1,"a":[2,{"y":1,"b":2}]}}],' +
        '"task":{"description":"d","items":[{"kind":"choice","name":"c","options":["a","b"],"question":"q"}],"name":"t",' +
        '"provenance":{"labels":"x","licence":"l","package":"p","source":"s"}}}',
    );
  });
});
