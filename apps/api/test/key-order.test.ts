import { datasetHash, type Task } from "@decision-workbench/datasets";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticTask } from "./fixtures.js";
import { addServer, body, post, reference, runToEnd, type TestBench, testBench } from "./helpers.js";

// A mapping state with integer-like keys: JavaScript lists "2" and "10" (and nested "1") first in any object, so
// only the file's text keeps the order the service must read.
const fileState = (i: number) => `{"zeta": ${i}, "2": "two", "alpha": "a0", "10": {"b": 1, "1": [2.0]}}`;
const wireState = (i: number) => `{"zeta":${i},"2":"two","alpha":"a0","10":{"b":1,"1":[2]}}`;
const jsOrder = (i: number) => `{"2": "two", "10": {"1": [2], "b": 1}, "zeta": ${i}, "alpha": "a0"}`;
const COUNT = 6;

const jsonlOf = (state: (i: number) => string) =>
  Array.from(
    { length: COUNT },
    (_, i) => `{"id": "k${i}", "state": ${state(i)}, "labels": {"team": "billing"}}`,
  )
    .join("\n")
    .concat("\n");
const csv = ["id,state.zeta,state.2,state.alpha,team"]
  .concat(Array.from({ length: COUNT }, (_, i) => `c${i},${i},two,a0,billing`))
  .join("\r\n");

let bench: TestBench;
let ref: DecisionServerHandle;
let serverId: string;

beforeAll(async () => {
  bench = await testBench();
  ref = await reference();
  serverId = await addServer(bench.app, ref.url);
});

afterAll(async () => {
  await bench.close();
  await ref.close();
});

async function upload(name: string, format: "jsonl" | "csv", content: string): Promise<string> {
  const res = await post(bench.app, "/api/datasets", { task: syntheticTask(name), format, content });
  expect(res.statusCode, res.body).toBe(201);
  return body<{ hash: string }>(res).hash;
}

/** Runs every example of `dataset` and returns the raw text of the requests the service received for it. */
async function bodiesOf(dataset: string): Promise<string[]> {
  return (await runOf(dataset)).bodies;
}

/** Runs every example of `dataset`: the run's id and the raw text of the requests the service received for it. */
async function runOf(dataset: string): Promise<{ id: string; bodies: string[] }> {
  const before = ref.requests.length;
  const run = await runToEnd(bench, {
    dataset,
    serverId,
    model: "lexical",
    splits: ["train", "calibration", "test"],
    concurrency: 2,
  });
  expect(run.status).toBe("done");
  expect(run.progress.done).toBe(COUNT);
  return { id: run.id, bodies: ref.requests.slice(before).map((r) => r.body) };
}

describe("a state reaches the service in its file's key order (integer-like keys included)", () => {
  it("JSONL: every request's state is the line's, in the line's order at every depth", async () => {
    await upload("order-jsonl", "jsonl", jsonlOf(fileState));
    const bodies = await bodiesOf("order-jsonl");
    expect(bodies.length).toBe(COUNT);
    for (let i = 0; i < COUNT; i++)
      expect(bodies.filter((b) => b.includes(`"state":${wireState(i)}`)).length, wireState(i)).toBe(1);
    expect(bodies.some((b) => b.includes(`"state":{"2"`))).toBe(false);
  });

  it("a replay on the deterministic server asks again in the file's order, so nothing differs", async () => {
    await upload("order-replay", "jsonl", jsonlOf(fileState));
    const { id } = await runOf("order-replay");
    const before = ref.requests.length;
    const res = await post(bench.app, `/api/runs/${id}/replay`);
    expect(res.statusCode, res.body).toBe(200);
    const replay = body<{ checked: number; differing: number; called: boolean }>(res);
    expect(replay.called).toBe(true);
    expect(replay.checked).toBe(COUNT * 3);
    expect(replay.differing).toBe(0);
    const bodies = ref.requests.slice(before).map((r) => r.body);
    for (let i = 0; i < COUNT; i++)
      expect(bodies.filter((b) => b.includes(`"state":${wireState(i)}`)).length, wireState(i)).toBe(1);
  });

  it("CSV: state.<field> columns arrive in column order", async () => {
    await upload("order-csv", "csv", csv);
    const bodies = await bodiesOf("order-csv");
    expect(bodies.length).toBe(COUNT);
    for (let i = 0; i < COUNT; i++)
      expect(bodies.filter((b) => b.includes(`"state":{"zeta":${i},"2":"two","alpha":"a0"}`)).length).toBe(1);
  });

  it("the stored examples keep the order: read back, they hash to the upload's hash", async () => {
    const read = await bench.storage.uploadWithExamples("order-jsonl");
    if (!read) throw new Error("the upload should be stored");
    expect(read.examples.map((e) => e.stateJson)).toEqual(
      Array.from({ length: COUNT }, (_, i) => wireState(i)),
    );
    expect(datasetHash(read.upload.task as Task, read.examples as never)).toBe(read.upload.hash);
  });

  it("the hash of a file JavaScript keeps in order is as before (golden value from the previous code)", async () => {
    expect(await upload("order-js", "jsonl", jsonlOf(jsOrder))).toBe(GOLDEN_JS_ORDER);
    const bodies = await bodiesOf("order-js");
    for (let i = 0; i < COUNT; i++)
      expect(
        bodies.filter((b) => b.includes(`"state":${JSON.stringify(JSON.parse(jsOrder(i)))}`)).length,
      ).toBe(1);
  });

  it("the line's order changes the hash (the state is hashed as sent)", async () => {
    const js = await upload("order-x", "jsonl", jsonlOf(jsOrder));
    const res = await bench.app.inject({
      method: "DELETE",
      url: "/api/datasets/order-x",
      headers: { "x-workbench": "1" },
    });
    expect(res.statusCode, res.body).toBe(204);
    expect(await upload("order-x", "jsonl", jsonlOf(fileState))).not.toBe(js);
  });

  it("an upload stored before states kept their order keeps its hash and is sent as stored", async () => {
    const task = syntheticTask("order-old") as Task;
    const examples = Array.from({ length: COUNT }, (_, i) => ({
      id: `o${i}`,
      state: JSON.parse(fileState(i)) as Record<string, unknown>, // what the parser made of the line before
      labels: { team: "billing" },
      split: "train" as const,
    }));
    const hash = datasetHash(task, examples);
    await bench.storage.insertUpload(
      {
        name: "order-old",
        task,
        hash,
        examples: COUNT,
        splits: { train: COUNT, calibration: 0, test: 0 },
        createdAt: "t",
      },
      examples,
    );
    const read = await bench.storage.uploadWithExamples("order-old");
    expect(read?.examples.every((e) => e.stateJson === undefined)).toBe(true);
    expect(datasetHash(task, read?.examples as never)).toBe(hash);
    const bodies = await bodiesOf("order-old");
    for (let i = 0; i < COUNT; i++)
      expect(bodies.filter((b) => b.includes(`"state":${JSON.stringify(examples[i].state)}`)).length).toBe(1);
  });
});

/** The hash of jsonlOf(jsOrder) uploaded under "order-js", computed with the code before stateJson. */
const GOLDEN_JS_ORDER = "706326ea6ab56199c053361b739b576f6e9e79fc660f02e3a29370fa0295bdbe";
