/**
 * A run reads its examples a page at a time (engine/selection.ts `outlinePages`), never the whole dataset: a page
 * whose examples are all stored is not read, the stored examples of the others are skipped, and a run cancelled
 * and resumed across pages asks every example once.
 */

import type { Item } from "@decision-workbench/datasets";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { decisionDecider } from "@decision-workbench/scorer";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RunJob } from "../src/engine/job.js";
import {
  EXAMPLE_PAGE,
  type ExamplePages,
  type Outline,
  outlineExamples,
  outlinePages,
  type Selected,
} from "../src/engine/selection.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { storedRun, syntheticExamples, syntheticTask } from "./fixtures.js";
import {
  addDataset,
  addServer,
  body,
  post,
  reference,
  requestsPerState,
  type TestBench,
  testBench,
} from "./helpers.js";
import { uploadRows } from "./upload-rows.js";

let bench: TestBench;
let ref: DecisionServerHandle;
let serverId: string;

beforeAll(async () => {
  bench = await testBench();
  ref = await reference({ faults: { rules: [{ rate: 1, fault: { kind: "delay", ms: 2 } }] } });
  serverId = await addServer(bench.app, ref.url);
}, 60_000);

afterAll(async () => {
  await bench?.close();
  await ref?.close();
});

/** Starts a run of every split of `dataset` at concurrency 8 on the reference server. */
async function startRun(dataset: string): Promise<RunSummary> {
  const splits = ["train", "calibration", "test"];
  return body<RunSummary>(
    await post(bench.app, "/api/runs", { dataset, serverId, model: "lexical", splits, concurrency: 8 }),
  );
}

/** Every page of `pages`, in order. */
async function allPages(pages: ReturnType<typeof outlinePages>): Promise<number[][]> {
  const out: number[][] = [];
  for (let page = await pages.next(); page.length; page = await pages.next())
    out.push(page.map((s) => s.ordinal));
  return out;
}

describe("a run's examples read a page at a time", () => {
  it("skips stored examples, and does not read a page whose examples are all stored", async () => {
    const total = 2 * EXAMPLE_PAGE + 300;
    await bench.storage.insertUpload(...uploadRows("paged", total));
    const outline = (await outlineExamples(
      bench.storage,
      "paged",
      ["train", "calibration", "test"],
      null,
    )) as Outline;
    expect(outline.total).toBe(total);
    // the whole first page, one example of the second, the last example
    const stored = Int32Array.from([
      ...Array.from({ length: EXAMPLE_PAGE }, (_, k) => k),
      EXAMPLE_PAGE + 7,
      total - 1,
      total - 1,
    ]);
    const reads = vi.spyOn(bench.storage, "uploadExamplesAt");
    const pages = outlinePages(bench.storage, "paged", outline, stored);
    expect(pages.count).toBe(total - EXAMPLE_PAGE - 2);
    const got = await allPages(pages);
    expect(reads).toHaveBeenCalledTimes(2);
    reads.mockRestore();
    expect(got.map((p) => p.length)).toEqual([EXAMPLE_PAGE - 1, 299]);
    const want = Array.from({ length: total }, (_, k) => k).filter((k) => !stored.includes(k));
    expect(got.flat()).toEqual(want);
    // nothing more once every page is read
    expect(await pages.next()).toEqual([]);
  });

  it("asks each example once across a cancel and a resume, reading only the pages not stored", async () => {
    const name = "paged_run";
    await addDataset(bench.app, 2 * EXAMPLE_PAGE + 500, name);
    const whole = vi.spyOn(bench.storage, "uploadWithExamples");
    const reads = vi.spyOn(bench.storage, "uploadExamplesAt");
    const started = await startRun(name);
    expect(started.status).toBe("running");
    const total = started.progress.total;
    expect(total).toBe(2 * EXAMPLE_PAGE + 500);
    for (let i = 0; i < 600; i++) {
      if ((await bench.storage.getStoredRun(started.id))!.counters.done > EXAMPLE_PAGE + 50) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await post(bench.app, `/api/runs/${started.id}/cancel`);
    await bench.engine.settle(started.id);
    const stored = await bench.storage.storedOrdinals(started.id, 0, total);
    expect(stored.length).toBeGreaterThan(EXAMPLE_PAGE);
    expect(stored.length).toBeLessThan(total);
    // the pages that still have an example to ask, and only those, are read again
    const open = new Set<number>();
    const done = new Set(stored);
    for (let k = 0; k < total; k++) if (!done.has(k)) open.add(Math.floor(k / EXAMPLE_PAGE));
    reads.mockClear();
    const resumed = body<RunSummary>(await post(bench.app, `/api/runs/${started.id}/resume`));
    expect(resumed.status).toBe("running");
    await bench.engine.settle(started.id);
    expect(reads).toHaveBeenCalledTimes(open.size);
    expect(whole).not.toHaveBeenCalled();
    whole.mockRestore();
    reads.mockRestore();
    const final = body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${started.id}` }));
    expect(final.status).toBe("done");
    expect(final.progress.done).toBe(total);
    const asked = requestsPerState(ref);
    expect(asked.size).toBe(total);
    expect([...asked.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);

  it("asks nothing once stopped while its slots wait for a page", async () => {
    const run = storedRun("run_stopped_reading", { total: 10, concurrency: 4 });
    await bench.storage.insertRun(run);
    let release = () => {};
    const reading = new Promise<void>((r) => {
      release = r;
    });
    let started = () => {};
    const asking = new Promise<void>((r) => {
      started = r;
    });
    const page = syntheticExamples(10).map((e, ordinal) => ({ ordinal, example: e }) as unknown as Selected);
    const examples: ExamplePages = {
      count: page.length,
      async next() {
        started();
        await reading;
        return page.splice(0);
      },
    };
    const asked = ref.requests.length;
    const job = new RunJob({
      storage: bench.storage,
      run,
      decider: decisionDecider(ref.url, "lexical"),
      items: syntheticTask("x").items as Item[],
      examples,
      latencies: [],
    });
    // the slots wait for the first page when the job is cancelled
    await asking;
    await job.cancel();
    release();
    expect(await job.finished).toBe("cancelled");
    expect(ref.requests.length).toBe(asked);
    expect((await bench.storage.getStoredRun(run.id))?.status).toBe("cancelled");
  });

  it("fails a run whose dataset changes under it at its next page, having asked the pages before", async () => {
    const name = "paged_changed";
    await addDataset(bench.app, 2 * EXAMPLE_PAGE + 100, name);
    const upload = bench.storage.getUpload.bind(bench.storage);
    const reads = vi.spyOn(bench.storage, "uploadExamplesAt");
    // once the run's first page has been read, the dataset under that name is another one
    const changed = vi.spyOn(bench.storage, "getUpload").mockImplementation(async (asked) => {
      const row = await upload(asked);
      return row && asked === name && reads.mock.calls.length > 0 ? { ...row, hash: "another" } : row;
    });
    const started = await startRun(name);
    await bench.engine.settle(started.id);
    changed.mockRestore();
    reads.mockRestore();
    const ended = body<RunSummary>(await bench.app.inject({ method: "GET", url: `/api/runs/${started.id}` }));
    expect(ended.status).toBe("failed");
    expect(ended.error).toContain(`the dataset "${name}" changed since the run started`);
    expect(ended.progress.done).toBe(EXAMPLE_PAGE);
  });
});
