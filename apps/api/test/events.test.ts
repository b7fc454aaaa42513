import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Progress, RunSummary } from "../src/shapes/runs.js";
import {
  addDataset,
  addServer,
  body,
  post,
  reference,
  runToEnd,
  type TestBench,
  testBench,
} from "./helpers.js";
import { readEvents } from "./sse.js";

let bench: TestBench;
let slow: DecisionServerHandle;
let serverId: string;
let url: string;

beforeAll(async () => {
  bench = await testBench();
  url = await bench.listen();
  slow = await reference({ faults: { rules: [{ rate: 1, fault: { kind: "delay", ms: 25 } }] } });
  serverId = await addServer(bench.app, slow.url);
  await addDataset(bench.app, 45);
});

afterAll(async () => {
  await bench.close();
  await slow.close();
});

describe("run events over real HTTP", () => {
  it("streams progress from the start and ends with done carrying the final summary", async () => {
    const run = body<RunSummary>(
      await post(bench.app, "/api/runs", {
        dataset: "tickets",
        serverId,
        model: "lexical",
        splits: ["train", "test"],
        concurrency: 2,
      }),
    );
    const { status, contentType, events } = await readEvents(`${url}/api/runs/${run.id}/events`);
    expect(status).toBe(200);
    expect(contentType).toContain("text/event-stream");
    expect(events[0].event).toBe("progress");
    const last = events[events.length - 1];
    expect(last.event).toBe("done");
    const final = last.data as RunSummary;
    expect(final.status).toBe("done");
    expect(final.progress.done).toBe(30);
    const progress = events.filter((e) => e.event === "progress").map((e) => e.data as Progress);
    expect(progress.length).toBeGreaterThan(1);
    for (let i = 1; i < progress.length; i++)
      expect(progress[i].done).toBeGreaterThanOrEqual(progress[i - 1].done);
    expect(progress[progress.length - 1].done).toBe(30);
    expect(progress.every((p) => p.total === 30)).toBe(true);
    expect(events.filter((e) => e.event === "done").length).toBe(1);
  });

  it("sends one progress and done at once for a finished run", async () => {
    const run = await runToEnd(bench, {
      dataset: "tickets",
      serverId,
      model: "lexical",
      limit: 2,
      splits: ["test"],
    });
    const { events } = await readEvents(`${url}/api/runs/${run.id}/events`);
    expect(events.map((e) => e.event)).toEqual(["progress", "done"]);
    expect((events[1].data as RunSummary).progress.done).toBe(2);
  });

  it("ends with done (cancelled) when the run is cancelled while followed", async () => {
    const run = body<RunSummary>(
      await post(bench.app, "/api/runs", {
        dataset: "tickets",
        serverId,
        model: "lexical",
        splits: ["calibration"],
        concurrency: 1,
      }),
    );
    const { events } = await readEvents(`${url}/api/runs/${run.id}/events`, {
      onFirst: () => void post(bench.app, `/api/runs/${run.id}/cancel`),
    });
    const done = events[events.length - 1];
    expect(done.event).toBe("done");
    expect((done.data as RunSummary).status).toBe("cancelled");
    expect((done.data as RunSummary).progress.done).toBeLessThan(15);
  });

  it("answers 404 as JSON for the events of an unknown run", async () => {
    const res = await fetch(`${url}/api/runs/run_missing/events`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("run_missing");
  });
});
