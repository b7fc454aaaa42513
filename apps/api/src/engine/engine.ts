/** The run engine: starts, cancels, resumes and deletes runs, and tells listeners how they go. */

import { randomBytes } from "node:crypto";
import { SPLITS } from "@decision-workbench/datasets";
import { ValueError } from "@decision-workbench/scorer";
import { analysisData } from "../analysis/data.js";
import type { Headline } from "../analysis/headline.js";
import { ApiError, conflict, notFound } from "../errors.js";
import { processAlive } from "../process-alive.js";
import type { SecretBox } from "../secrets/box.js";
import { deciderFor } from "../servers/connect.js";
import { LOCAL_POLICY, type OutboundPolicy } from "../servers/outbound.js";
import { CONCURRENCY } from "../shapes/limits.js";
import type {
  Progress,
  ReplayResult,
  ResumeInput,
  RunEstimate,
  RunInput,
  RunSummary,
} from "../shapes/runs.js";
import type { PgRunEvents } from "../storage/postgres/pg-events.js";
import {
  emptyCounters,
  type RunMoment,
  type RunStats,
  type Split,
  type StoredRun,
  type WorkbenchStorage,
} from "../storage/types.js";
import { CAP_FIELDS, capReached, checkAmounts, estimateRun } from "./cost-guard.js";
import { GrowthGate } from "./growth-gate.js";
import { budgetOf, type JobOutcome, progressOf, RunJob } from "./job.js";
import type { Percentiles } from "./percentiles.js";
import { RateLanes } from "./rate-lane.js";
import { replayRun } from "./replay.js";
import type { RunQueue } from "./run-queue.js";
import { setUpRun } from "./run-setup.js";
import { finishIfComplete } from "./run-worker.js";
import { type Outline, outlineExamples, outlinePages, selectExamples, wireState } from "./selection.js";

/** A short random id with a prefix: `run_…`, `srv_…`, `cal_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString("base64url")}`;
}

/** Listener of a run's events. */
export interface RunListener {
  /** After each stored example; `current()` computes the progress (call it only when you show it). */
  progress?(current: () => Progress): void;
  done?(summary: RunSummary): void;
}

/** Options of the engine. */
export interface EngineOptions {
  storage: WorkbenchStorage;
  secrets: SecretBox;
  /** The process that owns the runs this engine works on (default: this one). */
  pid?: number;
  /** Where the engine reports runs that start, resume, fail or finish. */
  log?: (message: string) => void;
  /**
   * Which addresses its runs may connect to (servers/outbound.ts). Default: the local policy, private and
   * loopback allowed; a workbench with a token passes `{ allowPrivate: false }` unless --allow-private-servers.
   */
  outbound?: OutboundPolicy;
  /**
   * The queue of run chunks (run-queue.ts), with a shared database: runs are worked on by run workers in any
   * process (run-worker.ts), not by this engine.
   */
  queue?: RunQueue;
  /** Run events across processes (with a queue): live views hear of runs worked on elsewhere. */
  events?: PgRunEvents;
  /** The servers' rate lanes (default: this process's own; with a queue, lanes shared through the database). */
  lanes?: RateLanes;
}

/** A run's status and finish time as read: what is computed from a done run is stored only while they hold. */
function moment(run: StoredRun): RunMoment {
  return { status: run.status, finishedAt: run.finishedAt };
}

/** Runs of one storage, worked on by this process. */
export class RunEngine {
  private readonly storage: WorkbenchStorage;
  private readonly secrets: SecretBox;
  private readonly pid: number;
  private readonly log: (message: string) => void;
  /** The addresses its runs, and the API's checks, may connect to. */
  readonly outbound: OutboundPolicy;
  private readonly jobs = new Map<string, RunJob>();
  /** One rate-limit lane per server, shared by every run of this process on it (rate-lane.ts). */
  readonly lanes: RateLanes;
  private readonly queue: RunQueue | undefined;
  private readonly events: PgRunEvents | undefined;
  private closing = false;
  /**
   * Running runs' headlines and, when another process works on them, request-time percentiles: each reads every
   * stored answer (GET /api/runs/:id took 0.8-1.3 s near 1,000,000 examples, bench/workers.ts), kept until the run
   * has grown by 5 %. A new headline reads the chunks packed since the last (analysis/data.ts keeps the others' bin
   * sums) and every loose row (up to CHUNK_ROWS an item).
   */
  private readonly liveHeadlines = new GrowthGate<Headline>();
  private readonly liveLatency = new GrowthGate<Percentiles>();

  constructor(opts: EngineOptions) {
    this.storage = opts.storage;
    this.secrets = opts.secrets;
    this.pid = opts.pid ?? process.pid;
    this.log = opts.log ?? (() => {});
    this.outbound = opts.outbound ?? LOCAL_POLICY;
    this.lanes = opts.lanes ?? new RateLanes();
    this.queue = opts.queue;
    this.events = opts.events;
  }

  /**
   * Checks the input, stores a new run and starts it; `createdBy`: the person whose token asked for it. Throws
   * ApiError on bad input.
   */
  async create(input: RunInput, createdBy: string | null = null): Promise<RunSummary> {
    // the examples are counted from an outline: the job (or the queue's workers) reads them a page at a time
    const { server, splits, selection, decider } = await this.prepare(input, true);
    const concurrency = input.concurrency ?? CONCURRENCY.default;
    const run: StoredRun = {
      id: newId("run"),
      dataset: input.dataset,
      datasetHash: selection.hash,
      serverId: server.id,
      serverName: server.name,
      endpoint: decider.endpoint,
      model: input.model,
      fingerprint: decider.fingerprint,
      splits,
      concurrency,
      maxLen: input.maxLen ?? null,
      options: input.options ?? {},
      limit: input.limit ?? null,
      maxCost: input.maxCost ?? null,
      maxInputTokens: input.maxInputTokens ?? null,
      status: "queued",
      stopReason: null,
      error: null,
      createdAt: new Date().toISOString(),
      ...(createdBy === null ? {} : { createdBy }),
      ...(input.name ? { name: input.name } : {}),
      ...(input.note ? { note: input.note } : {}),
      startedAt: null,
      finishedAt: null,
      ownerPid: null,
      total: selection.total,
      counters: emptyCounters(),
      headline: null,
      stats: null,
    };
    await this.storage.insertRun(run);
    // what was just read is what the run starts from: not read a second time
    await this.launch(run.id, selection.outline);
    return this.summary(run.id);
  }

  /**
   * What a run with this input would send, before it starts (cost-guard.ts): its examples, estimated input and
   * output tokens and, when the server has prices, its cost. Checks the input as `create` does.
   */
  async estimate(input: RunInput): Promise<RunEstimate> {
    const { server, selection, decider } = await this.prepare(input, false);
    return estimateRun(
      selection.items,
      (selection.whole?.examples ?? []).map((s) => wireState(s.example)),
      decider.maxLen,
      server,
    );
  }

  /**
   * Checks a run's input: its server, model, splits, dataset, caps and scorer settings. Its examples are read
   * whole, or as an outline when `outline` (their number, items and hash only).
   */
  private async prepare(input: RunInput, outline: boolean) {
    checkAmounts(input as unknown as Record<string, unknown>, CAP_FIELDS);
    const server = await this.storage.getServer(input.serverId);
    if (!server) throw notFound("server", input.serverId, "list the servers with GET /api/servers");
    if (!server.models.includes(input.model)) {
      throw new ApiError(
        400,
        "invalid_request",
        `model ${JSON.stringify(input.model)} is not one of server "${server.name}"'s models (${server.models
          .map((m) => JSON.stringify(m))
          .join(", ")}); add it to the server first (PATCH /api/servers/${server.id})`,
      );
    }
    const splits: Split[] = dedupe<Split>(input.splits ?? ["calibration", "test"]);
    for (const s of splits) {
      if (!(SPLITS as readonly string[]).includes(s)) {
        throw new ApiError(
          400,
          "invalid_request",
          `split ${JSON.stringify(s)} is not one of ${SPLITS.join(", ")}`,
        );
      }
    }
    const limit = input.limit ?? null;
    const maxLen = input.maxLen ?? null;
    const options = input.options ?? {};
    const read = outline
      ? await outlineExamples(this.storage, input.dataset, splits, limit)
      : await selectExamples(this.storage, input.dataset, splits, limit);
    if (!read) {
      throw notFound("dataset", input.dataset, "list the datasets with GET /api/datasets");
    }
    const selection = {
      items: read.items,
      hash: read.hash,
      total: "total" in read ? read.total : read.examples.length,
      whole: "examples" in read ? read : undefined,
      outline: "examples" in read ? undefined : read,
    };
    if (selection.total === 0) {
      throw new ApiError(
        400,
        "invalid_request",
        `dataset ${JSON.stringify(input.dataset)} has no examples in the split(s) ${splits.join(", ")}; choose other splits`,
      );
    }
    let decider: ReturnType<typeof deciderFor>;
    try {
      decider = deciderFor(server, this.secrets, input.model, this.outbound, { options, maxLen });
    } catch (err) {
      if (err instanceof ValueError) throw new ApiError(400, "invalid_request", err.message);
      throw err;
    }
    return { server, splits, selection, decider };
  }

  /**
   * Starts (or restarts) work on a stored run; the status becomes `running`. With a queue, its examples not stored
   * yet go to the queue in chunks (a capped run in one chunk, so its cap is counted in one place).
   */
  private async launch(runId: string, outline?: Outline): Promise<void> {
    if (this.closing)
      throw new ApiError(503, "shutting_down", "the workbench is shutting down; try again after it restarts");
    const run = await this.mustGet(runId);
    const ctx = { storage: this.storage, secrets: this.secrets, outbound: this.outbound, lanes: this.lanes };
    const setup = await setUpRun(ctx, run, outline);
    if ("error" in setup) {
      await this.storage.updateRun(runId, {
        status: "failed",
        error: setup.error,
        finishedAt: new Date().toISOString(),
        ownerPid: null,
      });
      this.log(`run ${runId} failed: ${setup.error}`);
      return;
    }
    await this.storage.updateRun(runId, {
      status: "running",
      stopReason: null,
      error: null,
      startedAt: run.startedAt ?? new Date().toISOString(),
      finishedAt: null,
      ownerPid: this.queue ? null : this.pid,
      headline: null,
      stats: null,
    });
    const resumed = (stored: number) =>
      stored ? `resumed (${stored} of ${run.total} already stored)` : "started";
    if (this.queue) {
      const stored = await this.storage.storedOrdinals(runId, 0, run.total);
      const capped = run.maxCost !== null || run.maxInputTokens !== null;
      await this.queue.add(runId, chunkRanges(run.total, stored, capped));
      this.events?.notify(runId, true);
      // every example stored already (its last chunk ended before it could say so): done now
      if (stored.length >= run.total)
        await finishIfComplete({ storage: this.storage, events: this.events }, runId);
      this.log(`run ${runId} ${resumed(stored.length)}: queued`);
      return;
    }
    const { server, lane, decider } = setup;
    const stored = await this.storage.storedOrdinals(runId, 0, run.total);
    const fresh = await this.mustGet(runId);
    const job = new RunJob({
      storage: this.storage,
      run: fresh,
      decider,
      items: setup.items,
      examples: outlinePages(this.storage, run.dataset, setup.outline, stored),
      latencies: await this.storage.latencies(runId),
      lane,
      prices: server,
      onSettled: (outcome) => this.settled(runId, outcome),
    });
    this.jobs.set(runId, job);
    this.log(`run ${runId} ${resumed(stored.length)}`);
  }

  private settled(runId: string, outcome: JobOutcome): void {
    this.log(`run ${runId} ${outcome === "closed" ? "paused for shutdown" : outcome}`);
    void this.finishEvents(runId, outcome);
  }

  private async finishEvents(runId: string, outcome: JobOutcome): Promise<void> {
    const job = this.jobs.get(runId);
    try {
      const run = outcome === "done" ? await this.storage.getStoredRun(runId) : undefined;
      if (run?.status === "done") {
        const headline = await analysisData(this.storage).headline(runId);
        await this.storage.updateRun(runId, { headline }, moment(run));
      }
      const summary = outcome === "closed" ? undefined : await this.summary(runId);
      if (summary) job?.emit("summary", summary);
    } catch {
      // storage closed during shutdown
    } finally {
      if (this.jobs.get(runId) === job) {
        this.jobs.delete(runId);
      }
    }
  }

  /** Stops a running run; answers in flight are still stored. */
  async cancel(runId: string): Promise<RunSummary> {
    const run = await this.mustGet(runId);
    const job = this.jobs.get(runId);
    if (job && !job.stopped) {
      await job.cancel();
      return this.summary(runId);
    }
    if (run.status === "running" || run.status === "queued") {
      if (run.ownerPid !== null && run.ownerPid !== this.pid && processAlive(run.ownerPid)) {
        throw conflict(
          `run ${runId} is worked on by another workbench process (pid ${run.ownerPid}); cancel it there`,
          "run_owned_elsewhere",
        );
      }
      await this.storage.updateRun(runId, {
        status: "cancelled",
        finishedAt: new Date().toISOString(),
        ownerPid: null,
      });
      await this.unqueue(runId);
      return this.summary(runId);
    }
    throw conflict(
      `run ${runId} is already ${run.status}; only a queued or running run can be cancelled`,
      "run_not_running",
    );
  }

  /**
   * Continues a cancelled, failed, stopped or interrupted run with the examples it has not stored yet; `caps`
   * replaces its caps (a field left out is kept, null removes it). A run whose stored spend has reached a cap is
   * refused (409 budget_reached) until a higher one is given.
   */
  async resume(runId: string, caps: NonNullable<ResumeInput> = {}): Promise<RunSummary> {
    checkAmounts(caps as Record<string, unknown>, CAP_FIELDS);
    const stored = await this.mustGet(runId);
    const run = {
      ...stored,
      maxCost: caps.maxCost === undefined ? stored.maxCost : caps.maxCost,
      maxInputTokens: caps.maxInputTokens === undefined ? stored.maxInputTokens : caps.maxInputTokens,
    };
    const job = this.jobs.get(runId);
    if (job && !job.stopped) throw conflict(`run ${runId} is already running`, "run_running");
    if (this.queue && (run.status === "running" || run.status === "queued")) {
      // its chunks are in the queue or with a worker (a dead worker's go back by themselves)
      throw conflict(`run ${runId} is already running on the run workers`, "run_running");
    }
    if (run.status === "done") {
      throw conflict(
        `run ${runId} is done: every example is stored; start a new run to ask again`,
        "run_done",
      );
    }
    if (
      (run.status === "running" || run.status === "queued") &&
      run.ownerPid !== null &&
      run.ownerPid !== this.pid &&
      processAlive(run.ownerPid)
    ) {
      throw conflict(
        `run ${runId} is worked on by another workbench process (pid ${run.ownerPid})`,
        "run_owned_elsewhere",
      );
    }
    const reached = capReached(run, run.counters);
    if (reached) {
      throw conflict(
        `run ${runId} cannot resume: ${reached}; resume it with a higher cap (body {"maxInputTokens": …} or {"maxCost": …}, null for none)`,
        "budget_reached",
      );
    }
    if (job) await job.finished;
    if (caps.maxCost !== undefined || caps.maxInputTokens !== undefined) {
      await this.storage.updateRun(runId, { maxCost: run.maxCost, maxInputTokens: run.maxInputTokens });
    }
    await this.launch(runId);
    return this.summary(runId);
  }

  /** Removes a run's chunks from the queue (when there is one) and tells the live views. */
  private async unqueue(runId: string): Promise<void> {
    if (!this.queue) return;
    await this.queue.remove(runId);
    this.events?.notify(runId, true);
  }

  /**
   * Resumes every run left `running` or `queued` by a process that is gone; returns their ids. With a queue,
   * none: the queue keeps their chunks, and a chunk of a dead worker goes back to it.
   */
  async resumeInterrupted(): Promise<string[]> {
    const ids: string[] = [];
    if (this.queue) return ids;
    for (const status of ["running", "queued"] as const) {
      for (const run of await this.storage.listStoredRuns({ status })) {
        if (this.jobs.has(run.id)) continue;
        if (run.ownerPid !== null && run.ownerPid !== this.pid && processAlive(run.ownerPid)) continue;
        await this.launch(run.id);
        ids.push(run.id);
      }
    }
    return ids;
  }

  /** Deletes a run (cancelling it first), its predictions and its calibrations. */
  async delete(runId: string): Promise<void> {
    const run = await this.mustGet(runId);
    const job = this.jobs.get(runId);
    if (job) {
      await job.cancel();
      await job.finished;
    } else if (
      (run.status === "running" || run.status === "queued") &&
      run.ownerPid !== null &&
      run.ownerPid !== this.pid &&
      processAlive(run.ownerPid)
    ) {
      throw conflict(
        `run ${runId} is worked on by another workbench process (pid ${run.ownerPid}); cancel it there first`,
        "run_owned_elsewhere",
      );
    }
    await this.unqueue(runId);
    await this.storage.deleteRun(runId);
  }

  /** True while this process works on the run. */
  isActive(runId: string): boolean {
    const job = this.jobs.get(runId);
    return job !== undefined && !job.stopped;
  }

  /** Runs this process is working on. */
  activeRuns(): string[] {
    return [...this.jobs.keys()].filter((id) => this.isActive(id));
  }

  /** Waits until a run's current job (if any) has settled and its final summary is out. */
  async settle(runId: string): Promise<void> {
    const job = this.jobs.get(runId);
    if (!job && this.queue) return this.stopped(runId);
    if (!job) return;
    await job.finished;
    while (this.jobs.get(runId) === job) await new Promise((r) => setTimeout(r, 5));
  }

  /** With a queue: resolves once the run is no longer queued or running (its workers are elsewhere). */
  private async stopped(runId: string): Promise<void> {
    for (;;) {
      const run = await this.storage.getStoredRun(runId);
      if (!run || (run.status !== "running" && run.status !== "queued")) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Follows a run: `progress` after each stored example (unthrottled: callers throttle), `done` with the
   * final summary. Returns the unsubscribe function, or null when the run is not being worked on here.
   */
  follow(runId: string, listener: RunListener): (() => void) | null {
    const job = this.jobs.get(runId);
    if (!job) return this.events ? this.followElsewhere(runId, listener) : null;
    const current = () => job.progress();
    const onProgress = () => listener.progress?.(current);
    const onSummary = (summary: RunSummary) => listener.done?.(summary);
    job.on("progress", onProgress);
    job.on("summary", onSummary);
    return () => {
      job.off("progress", onProgress);
      job.off("summary", onSummary);
    };
  }

  /**
   * Follows a run worked on by run workers: on each of its notices, its stored progress (one read at a time; a
   * notice during a read asks for one more) with the examples a second seen since the view began, and its summary
   * once it has stopped.
   */
  private followElsewhere(runId: string, listener: RunListener): () => void {
    const events = this.events as PgRunEvents;
    let reading = false;
    let again = false;
    let over = false;
    let first: { at: number; done: number } | undefined;
    const read = async () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          const run = await this.storage.getStoredRun(runId);
          if (!run || over) return;
          if (run.status !== "running" && run.status !== "queued") {
            over = true;
            listener.done?.(await this.summarize(run));
            return;
          }
          const progress = await this.progress(run);
          // the stored rate counts each worker's time; the rate this view has seen counts the run's
          const now = Date.now();
          first ??= { at: now, done: progress.done };
          if (now - first.at >= 1000)
            progress.examplesPerSecond = (progress.done - first.done) / ((now - first.at) / 1000);
          listener.progress?.(() => progress);
        } while (again);
      } catch {
        // storage closed: the view ends with the stream
      } finally {
        reading = false;
      }
    };
    const off = events.on(runId, () => void read());
    void read(); // it may have ended between the summary and the subscription
    return () => {
      over = true;
      off();
    };
  }

  /** Re-checks a finished run (see replay.ts). */
  async replay(runId: string): Promise<ReplayResult> {
    const run = await this.mustGet(runId);
    if (this.isActive(runId))
      throw conflict(`run ${runId} is still running; replay it once it has stopped`, "run_running");
    const server = await this.storage.getServer(run.serverId);
    if (!server)
      throw conflict(
        `the run's server (${run.serverName}) was deleted, so it cannot be replayed`,
        "server_deleted",
      );
    return replayRun(this.storage, this.secrets, run, server, this.outbound);
  }

  /** The summary of a run. */
  async summary(runId: string): Promise<RunSummary> {
    return this.summarize(await this.mustGet(runId));
  }

  /** Summaries of runs, newest first. */
  async list(filter: { dataset?: string; status?: StoredRun["status"] } = {}): Promise<RunSummary[]> {
    const runs = await this.storage.listStoredRuns(filter);
    return Promise.all(runs.map((r) => this.summarize(r)));
  }

  /** Progress of a run: live when this process works on it, else from storage. */
  async progress(run: StoredRun): Promise<Progress> {
    const job = this.jobs.get(run.id);
    if (job && !job.stopped) return job.progress();
    return this.storedProgress(run, await this.latency(run));
  }

  private storedProgress(run: StoredRun, latency: Percentiles): Progress {
    const c = run.counters;
    return progressOf(run.total, c, {
      latency,
      examplesPerSecond: c.activeMs > 0 ? c.done / (c.activeMs / 1000) : 0,
      waitingForRateLimit: null,
      budget: budgetOf(run),
    });
  }

  /** The run's request-time percentiles, from every stored time (a running run's: see liveLatency). */
  private async latency(run: StoredRun): Promise<Percentiles> {
    const job = this.jobs.get(run.id);
    // a settled job holds every stored request time (before, answers in flight may still be stored)
    if (job?.settled) return job.latency.percentiles();
    if (run.status !== "running" && run.status !== "queued") {
      this.liveLatency.delete(run.id);
      return this.storage.latencyPercentiles(run.id);
    }
    return this.liveLatency.get(run.id, run.counters.done, () => this.storage.latencyPercentiles(run.id));
  }

  /**
   * A finished run's latency percentiles and served models: stored at its first summary (each reads every answer
   * of the run: 100 ms a 100,000-example run, so a list of ten took 0.8-1.2 s), read from storage after it.
   */
  private async finishedStats(run: StoredRun): Promise<RunStats> {
    if (run.stats) return run.stats;
    const [latency, servedBy] = await Promise.all([this.latency(run), this.storage.servedModels(run.id)]);
    const stats = { latency, servedBy };
    // not onto a run resumed (or finished again) meanwhile: its answers have changed
    await this.storage.updateRun(run.id, { stats }, moment(run));
    return stats;
  }

  /** The progress and served models of a summary. */
  private async progressAndServed(run: StoredRun): Promise<{ progress: Progress; servedBy: string[] }> {
    if (run.status === "done") {
      const stats = await this.finishedStats(run);
      return { progress: this.storedProgress(run, stats.latency), servedBy: stats.servedBy };
    }
    const [progress, servedBy] = await Promise.all([this.progress(run), this.storage.servedModels(run.id)]);
    return { progress, servedBy };
  }

  private async summarize(run: StoredRun): Promise<RunSummary> {
    const [{ progress, servedBy }, headline] = await Promise.all([
      this.progressAndServed(run),
      this.headline(run),
    ]);
    return {
      id: run.id,
      dataset: run.dataset,
      datasetHash: run.datasetHash,
      serverId: run.serverId,
      serverName: run.serverName,
      endpoint: run.endpoint,
      model: run.model,
      servedBy,
      fingerprint: run.fingerprint,
      splits: run.splits,
      concurrency: run.concurrency,
      maxLen: run.maxLen,
      options: run.options,
      limit: run.limit,
      maxCost: run.maxCost,
      maxInputTokens: run.maxInputTokens,
      status: run.status,
      stopReason: run.stopReason,
      error: run.error,
      createdAt: run.createdAt,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      progress,
      headline,
      createdBy: run.createdBy ?? null,
      name: run.name ?? null,
      note: run.note ?? null,
    };
  }

  /**
   * A finished run's stored headline (computed and stored the first time when it has none, e.g. a run finished
   * by another process); a running run's, computed again only once it has grown by 5 % since the last one (its
   * `n` says how many it counts), so the work of all its headlines stays within ~20 times one; any other run's,
   * computed.
   */
  private async headline(run: StoredRun): Promise<Headline> {
    if (run.headline && run.status === "done") return run.headline;
    const read = () => analysisData(this.storage).headline(run.id);
    if (run.status === "running" || run.status === "queued") {
      return this.liveHeadlines.get(run.id, run.counters.done, read);
    }
    this.liveHeadlines.delete(run.id);
    const headline = await read();
    if (run.status === "done") await this.storage.updateRun(run.id, { headline }, moment(run));
    return headline;
  }

  private async mustGet(runId: string): Promise<StoredRun> {
    const run = await this.storage.getStoredRun(runId);
    if (!run) throw notFound("run", runId, "list the runs with GET /api/runs");
    return run;
  }

  /** Stops taking examples, waits for answers in flight to be stored, and leaves the runs to resume later. */
  async close(): Promise<void> {
    this.closing = true;
    const jobs = [...this.jobs.values()];
    await Promise.all(jobs.map((j) => j.close()));
    await Promise.all(jobs.map((j) => j.finished));
    for (const id of [...this.jobs.keys()]) await this.settle(id);
  }
}

/** Most chunks a run is cut into, and the sizes of a chunk (examples). */
const CHUNKS = { most: 64, least: 100, largest: 10_000 } as const;

/**
 * A run's examples not stored yet (`stored`: the run ordinals stored, ascending), in chunks of run ordinals
 * `[from, to)`: about `pending / 64` pending examples each (100 at least, 10,000 at most), so several workers share
 * a run and a dead worker's chunk costs little to ask again. A capped run is one chunk.
 */
export function chunkRanges(total: number, stored: Int32Array, capped: boolean): [number, number][] {
  const pending = total - stored.length;
  if (pending <= 0) return [];
  const size = capped
    ? pending
    : Math.min(CHUNKS.largest, Math.max(CHUNKS.least, Math.ceil(pending / CHUNKS.most)));
  const ranges: [number, number][] = [];
  let k = 0; // next stored ordinal to skip
  let from = -1;
  let count = 0;
  for (let i = 0; i < total; i++) {
    if (k < stored.length && stored[k] === i) {
      k++;
      continue;
    }
    if (count === 0) from = i;
    if (++count === size) {
      ranges.push([from, i + 1]);
      count = 0;
    }
  }
  if (count > 0) ranges.push([from, total]);
  return ranges;
}

function dedupe<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
