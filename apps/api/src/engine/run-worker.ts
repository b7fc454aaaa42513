/**
 * Run workers: each takes one chunk of a queued run at a time (run-queue.ts) and asks its examples that are not
 * stored yet, as a local run would (job.ts), with the run's concurrency. An example stored by another worker is
 * skipped; the chunk stops when the run stops being `running` (cancelled, failed, deleted: checked every
 * second); the worker that stores a run's last example marks it done. On shutdown a worker stops taking
 * examples, stores its answers in flight and puts the rest of its chunk back in the queue.
 */

import { LRUCache } from "lru-cache";
import type { PgRunEvents } from "../storage/postgres/pg-events.js";
import type { StoredRun } from "../storage/types.js";
import { RunJob } from "./job.js";
import type { ChunkData, RunQueue } from "./run-queue.js";
import { type RunSetup, type SetupContext, setUpRun } from "./run-setup.js";
import { datasetHashOf, examplesBetween, type Outline, onePage, type Selected } from "./selection.js";

/** How often a chunk at work checks that its run is still running. */
const STATUS_CHECK_MS = 1000;

/**
 * The outlines of the runs a worker process keeps (4 MB each at 1,000,000 examples): reading one takes 918 ms at
 * 1,000,000 examples, once a chunk (100 times such a run) without them.
 */
const KEPT_OUTLINES = 4;

/** What run workers need. */
export interface RunWorkerOptions extends SetupContext {
  queue: RunQueue;
  events: PgRunEvents;
  /** Where workers report chunks that fail and runs they finish. */
  log?: (message: string) => void;
}

/**
 * Marks a run done once every example is stored; true when it did. Its headline is left to the first read of the
 * run (engine.ts computes and stores it): an API instance that followed the run has most of it at hand, while a
 * worker would read the whole run for it (its RSS went from 239 to 318 MB at the end of a 1,000,000-example run).
 */
export async function finishIfComplete(
  ctx: { storage: RunWorkerOptions["storage"]; events?: PgRunEvents },
  runId: string,
): Promise<boolean> {
  const run = await ctx.storage.getStoredRun(runId);
  if (run?.status !== "running" || run.counters.done < run.total) return false;
  await ctx.storage.updateRun(runId, {
    status: "done",
    error: null,
    finishedAt: new Date().toISOString(),
    ownerPid: null,
    headline: null,
    stats: null,
  });
  ctx.events?.notify(runId, true);
  return true;
}

/** Workers of one process on one queue. */
export class RunWorkers {
  private readonly jobs = new Set<RunJob>();
  /** Each run's outline, read at its first chunk here and used while its dataset keeps its hash. */
  private readonly outlines = new LRUCache<string, Outline>({ max: KEPT_OUTLINES });
  private closing = false;
  private readonly log: (message: string) => void;

  constructor(
    private readonly opts: RunWorkerOptions,
    count: number,
  ) {
    this.log = opts.log ?? (() => {});
    for (let i = 0; i < count; i++) {
      opts.queue.work(
        (chunk) => this.process(chunk),
        (chunk, err) => void this.failRun(chunk.runId, `a chunk of the run failed: ${err.message}`),
      );
    }
  }

  private async failRun(runId: string, error: string): Promise<void> {
    await this.opts.storage
      .updateRun(runId, { status: "failed", error, finishedAt: new Date().toISOString(), ownerPid: null })
      .catch(() => {});
    this.opts.events.notify(runId, true);
    this.log(`run ${runId} failed: ${error}`);
  }

  /** Asks a chunk's examples that are not stored yet. */
  private async process(chunk: ChunkData): Promise<void> {
    const { storage, events, queue } = this.opts;
    const run = await storage.getStoredRun(chunk.runId);
    if (run?.status !== "running" || this.closing) {
      if (run && this.closing) await queue.add(run.id, [[chunk.from, chunk.to]]);
      return;
    }
    const kept = await this.keptOutline(run);
    const setup = await setUpRun(this.opts, run, kept);
    if ("error" in setup) return this.failRun(run.id, setup.error);
    if (!kept) this.outlines.set(run.id, setup.outline);
    // this chunk's examples only, and which of them are stored: a worker's memory does not grow with the run
    const examples = await examplesBetween(storage, run.dataset, setup.outline, chunk.from, chunk.to);
    const stored = new Set(await storage.storedOrdinals(run.id, chunk.from, chunk.to));
    const pending = examples.filter((s) => !stored.has(s.ordinal));
    if (pending.length) {
      this.log(`run ${run.id}: examples ${chunk.from}-${chunk.to - 1}, ${pending.length} to ask`);
      const job = this.startJob(run, setup, pending);
      const outcome = await job.finished;
      if (outcome === "closed" && this.closing) {
        // shutdown: the examples of the chunk not stored yet go back to the queue
        const now = new Set(await storage.storedOrdinals(run.id, chunk.from, chunk.to));
        const left = pending.find((s) => !now.has(s.ordinal));
        if (left) await queue.add(run.id, [[left.ordinal, chunk.to]]);
        return;
      }
    }
    if (await finishIfComplete(this.opts, run.id)) this.log(`run ${run.id} done`);
    else events.notify(run.id);
  }

  /** The run's outline read at an earlier chunk, when its dataset still has the hash it had then. */
  private async keptOutline(run: StoredRun): Promise<Outline | undefined> {
    const kept = this.outlines.get(run.id);
    if (!kept) return undefined;
    if ((await datasetHashOf(this.opts.storage, run.dataset)) === kept.hash) return kept;
    this.outlines.delete(run.id);
    return undefined;
  }

  private startJob(run: StoredRun, setup: RunSetup, pending: Selected[]): RunJob {
    const { storage, events } = this.opts;
    const job = new RunJob({
      storage,
      run,
      decider: setup.decider,
      items: setup.items,
      examples: onePage(pending),
      latencies: [],
      lane: setup.lane,
      prices: setup.server,
      chunk: true,
    });
    this.jobs.add(job);
    job.on("progress", () => events.notify(run.id));
    const watch = setInterval(() => {
      void storage.getStoredRun(run.id).then(
        (r) => {
          if (r?.status !== "running") void job.close();
        },
        () => {},
      );
    }, STATUS_CHECK_MS);
    void job.finished.finally(() => {
      clearInterval(watch);
      this.jobs.delete(job);
    });
    return job;
  }

  /** Stops taking chunks and examples; answers in flight are stored and unfinished chunks go back. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.jobs].map((j) => j.close()));
  }
}
