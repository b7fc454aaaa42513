import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplayResult } from "../src/shapes/runs.js";
import { addServer, post, reference, runToEnd, type TestBench, testBench } from "./helpers.js";

let bench: TestBench;
let server: DecisionServerHandle;

beforeAll(async () => {
  bench = await testBench();
  server = await reference({ checkpoints: true, alias: "bayes-1" });
});

afterAll(async () => {
  await bench.close();
  await server.close();
});

describe("replay catches a weight swap behind the same model name", () => {
  it("finds no difference before the swap and differences after it", async () => {
    const port = Number(new URL(server.url).port);
    const serverId = await addServer(bench.app, server.url, { models: ["workbench-latest"] });
    const run = await runToEnd(bench, {
      dataset: "penguins",
      serverId,
      model: "workbench-latest",
      limit: 5,
      splits: ["test"],
    });
    expect(run.status).toBe("done");
    expect(run.servedBy).toEqual(["bayes-1"]);
    const same = JSON.parse((await post(bench.app, `/api/runs/${run.id}/replay`)).body) as ReplayResult;
    expect(same).toMatchObject({ checked: 15, differing: 0, called: true });

    await server.close();
    server = await reference({ checkpoints: true, alias: "bayes-2", port });
    const swapped = JSON.parse((await post(bench.app, `/api/runs/${run.id}/replay`)).body) as ReplayResult;
    expect(swapped.called).toBe(true);
    expect(swapped.differing).toBeGreaterThan(0);
    expect(swapped.byField.served_by).toBe(15);
    expect(swapped.examples[0].differences).toContainEqual(
      expect.objectContaining({ field: "served_by", recorded: "bayes-1", now: "bayes-2" }),
    );
  });

  it("checks every stored decision of a run longer than one page of predictions", async () => {
    const serverId = await addServer(bench.app, server.url, { models: ["workbench-latest"] });
    const run = await runToEnd(bench, {
      dataset: "spam-assassin",
      serverId,
      model: "workbench-latest",
      limit: 520,
      splits: ["test"],
      concurrency: 16,
    });
    expect(run.status).toBe("done");
    const stored = await bench.storage.listPredictions(run.id);
    expect(stored.length).toBe(1040);
    const again = JSON.parse((await post(bench.app, `/api/runs/${run.id}/replay`)).body) as ReplayResult;
    expect(again).toMatchObject({ checked: 1040, differing: 0, called: true });
  });
});
