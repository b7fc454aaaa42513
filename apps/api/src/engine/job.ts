/**
 * One run at work: a bounded pool of workers, one request per example (the scorer's batch call for all
 * items), one transaction per answered example, progress events, cancel, and a ServiceError stops it.
 */

import { EventEmitter, setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import type { Item } from "@decision-workbench/datasets";
import { AbortError, type DecisionDecider, ServiceError } from "@decision-workbench/scorer";
import type { Progress } from "../shapes/runs.js";
import { AlreadyStored } from "../storage/errors.js";
import type { ExampleResult, RunCounters, StoredRun, WorkbenchStorage } from "../storage/types.js";
import { Budget, outputTokens, type Prices, priceCost } from "./cost-guard.js";
import { LatencyLog } from "./percentiles.js";
import type { RateLane } from "./rate-lane.js";
import { ticketSignal } from "./rate-opener.js";
import { itemTokens, requestTokens } from "./rate-tokens.js";
import { exampleResult } from "./record.js";
import { type ExamplePages, type Selected, wireState } from "./selection.js";

/** How a job ended. */
export type JobOutcome = "done" | "cancelled" | "failed" | "stopped" | "closed";

/**
 * Most answers of a run that may wait for their commit at once: two per slot, so that a slot asks its next example
 * while its answer is committed. Answers are committed as they arrive (storage/writer.ts), so the bound holds
 * slots back only while the storage falls behind (a slow disk, a write lock held by another process); a killed
 * process asks these again, with the requests in flight.
 */
export function maxUnstored(concurrency: number): number {
  return 2 * concurrency;
}

/**
 * Answers handed to the storage and not committed yet, bounded: a slot takes a place before it asks (`room`), its
 * answer's commit keeps it until settled (`add`), and a slot that finds every place taken waits for a commit (one
 * waiting slot is woken per commit). So never more than `max` answers wait for their commit, whatever the slots.
 */
export class UnstoredAnswers {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly waiting: (() => void)[] = [];
  /** Places taken by slots whose answer has not been handed over yet. */
  private taken = 0;

  constructor(readonly max: number) {}

  /** Hands over one answer's commit, in its slot's place (settled either way, it leaves room for another). */
  add(commit: Promise<unknown>): void {
    if (this.taken > 0) this.taken--;
    this.pending.add(commit);
    const settled = () => {
      this.pending.delete(commit);
      this.waiting.shift()?.();
    };
    void commit.then(settled, settled);
  }

  /** Resolves once a place is free, and takes it for the answer about to be asked. */
  async room(): Promise<void> {
    while (this.pending.size + this.taken >= this.max) {
      await new Promise<void>((wake) => this.waiting.push(wake));
    }
    this.taken++;
  }

  /** Gives back a place taken by `room` whose answer will not come (the slot stopped or its request failed). */
  release(): void {
    if (this.taken === 0) return;
    this.taken--;
    this.waiting.shift()?.();
  }

  /** Resolves once every answer handed over has settled. */
  async drained(): Promise<void> {
    while (this.pending.size) await Promise.allSettled(this.pending);
  }
}

/** What a job needs. */
export interface JobDeps {
  storage: WorkbenchStorage;
  run: StoredRun;
  decider: DecisionDecider;
  items: Item[];
  /** Examples still to ask, in run order, a page at a time. */
  examples: ExamplePages;
  /** Request times already stored (ascending or not). */
  latencies: number[];
  /** Called once when the job has settled (status written). */
  onSettled?: (outcome: JobOutcome) => void;
  /**
   * The server's lane (rate-lane.ts): each request waits for it before it is sent. The decider's opener must go
   * through the same lane (servers/connect.ts `deciderFor(..., { lane })`).
   */
  lane?: RateLane;
  /** The server's prices: the cost of a reply without its own `cost`, and the estimate a cost cap counts. */
  prices?: Prices;
  /**
   * True for one chunk of a queued run (run-worker.ts): its end leaves the run's status to the worker, which
   * marks the run done once every example is stored, and an answer another worker stored first is skipped.
   */
  chunk?: boolean;
}

/** How often progress is told while the run's requests wait for the rate limit. */
const WAITING_PROGRESS_MS = 1000;

/**
 * Emits `progress` after each stored example and `done` (with the outcome) once settled. The promise of
 * `finished` resolves after every request in flight has been answered and stored.
 */
export class RunJob extends EventEmitter {
  readonly runId: string;
  readonly finished: Promise<JobOutcome>;
  private readonly deps: JobDeps;
  private readonly counters: RunCounters;
  /** Request times of the run's stored examples (those stored before this job's start included). */
  readonly latency: LatencyLog;
  private readonly total: number;
  private stopping = false;
  private outcome: JobOutcome | null = null;
  /** True once every answer handed to the storage has settled (just before `onSettled`). */
  settled = false;
  private doneThisSession = 0;
  private readonly startedAt = performance.now();
  /** The page of examples being asked, and the next one's place in it. */
  private page: Selected[] = [];
  private next = 0;
  /** The read of the next page, shared by the slots that wait for it; set to null once every page is read. */
  private reading: Promise<void> | undefined | null;
  private readonly unstored: UnstoredAnswers;
  /** Aborts the waits for the rate limit when the job stops. */
  private readonly aborter = new AbortController();
  /** When each request waiting for the lane may go (ms, performance clock). */
  private readonly waits = new Set<{ at: number }>();
  /** Requests being asked (sent, or waiting for the lane inside the call after a 429). */
  private asking = 0;
  private waitTimer: NodeJS.Timeout | null = null;
  private questionTokens = -1;
  /** The run's caps: a request goes only while its estimate fits (cost-guard.ts). */
  private readonly budget: Budget;

  constructor(deps: JobDeps) {
    super();
    this.setMaxListeners(0);
    this.deps = deps;
    this.runId = deps.run.id;
    this.counters = { ...deps.run.counters };
    this.latency = new LatencyLog(deps.latencies);
    this.total = deps.run.total;
    this.unstored = new UnstoredAnswers(maxUnstored(deps.run.concurrency));
    setMaxListeners(0, this.aborter.signal); // each slot waiting for the rate limit listens to it
    this.budget = new Budget(
      { maxCost: deps.run.maxCost, maxInputTokens: deps.run.maxInputTokens },
      () => this.counters,
    );
    this.finished = this.work();
  }

  /** Live progress. */
  progress(): Progress {
    const seconds = (performance.now() - this.startedAt) / 1000;
    return progressOf(this.total, this.counters, {
      latency: this.latency.percentiles(),
      examplesPerSecond: seconds > 0 ? this.doneThisSession / seconds : 0,
      waitingForRateLimit: this.waitingForRateLimit(),
      budget: budgetOf(this.deps.run),
    });
  }

  /**
   * Seconds until the last of the run's requests waiting for its server's rate limit may go (one decimal), or
   * null when none waits: requests paced by the lane, and requests in flight while a 429 pauses it.
   */
  waitingForRateLimit(): number | null {
    const lane = this.deps.lane;
    if (!lane || this.outcome !== null) return null;
    let left = this.asking > 0 ? lane.secondsLeft(0) : 0;
    for (const w of this.waits) left = Math.max(left, lane.secondsLeft(w.at));
    return left > 0 ? Math.ceil(left * 10) / 10 : null;
  }

  /** Tells progress every second while requests wait for the rate limit (the first time at once). */
  private watchWaits(): void {
    if (this.waitTimer) return;
    this.emit("progress");
    this.waitTimer = setInterval(() => {
      if (this.waitingForRateLimit() === null) {
        if (this.waitTimer) clearInterval(this.waitTimer);
        this.waitTimer = null;
      }
      this.emit("progress");
    }, WAITING_PROGRESS_MS);
    this.waitTimer.unref();
  }

  /**
   * Asks one example: through the server's lane when there is one (the request and its estimated input tokens
   * are taken before the call; the reply's usage corrects the estimate).
   */
  private async ask(sel: Selected): ReturnType<DecisionDecider["decideAll"]> {
    const { decider, items, lane } = this.deps;
    const state = wireState(sel.example);
    // a free lane holds nothing back: the opener takes the request itself, no ticket needed
    if (!lane || lane.free) return decider.decideAll(state, items);
    if (this.questionTokens < 0) this.questionTokens = itemTokens(items);
    const estimate = requestTokens(state, this.questionTokens, decider.maxLen);
    const wait = { at: lane.reserve(estimate) };
    if (lane.secondsLeft(wait.at) > 0) {
      this.waits.add(wait);
      this.watchWaits();
    }
    try {
      await lane.wait(wait.at, this.aborter.signal, estimate);
    } catch (err) {
      lane.cancel(estimate);
      throw err;
    } finally {
      this.waits.delete(wait);
    }
    const ticket = {
      prepaid: true,
      onLimited: () => this.watchWaits(),
    };
    this.asking++;
    try {
      const decisions = await decider.decideAll(state, items, { signal: ticketSignal(ticket) });
      if (ticket.prepaid)
        lane.cancel(estimate); // answered from the cache: nothing was sent
      else lane.settle(estimate, decisions[0]?.extra.decision.usage?.input_tokens);
      return decisions;
    } finally {
      this.asking--;
    }
  }

  /** True once the job stops taking examples (cancelled, failed, closing or all asked). */
  get stopped(): boolean {
    return this.outcome !== null;
  }

  /** Stops taking examples; answers in flight are still stored. The status becomes `cancelled` at once. */
  async cancel(): Promise<void> {
    await this.stop("cancelled", null);
  }

  /** Stops taking examples and leaves the run `running` for the next start to resume (shutdown). */
  async close(): Promise<void> {
    if (this.outcome !== null) return;
    this.outcome = "closed";
    this.stopping = true;
    this.aborter.abort();
  }

  private async stop(outcome: "cancelled" | "failed" | "stopped", error: string | null): Promise<void> {
    if (this.outcome !== null) return;
    this.outcome = outcome;
    this.stopping = true;
    this.aborter.abort();
    await this.deps.storage.updateRun(this.runId, {
      status: outcome,
      stopReason: outcome === "stopped" ? "budget" : null,
      error,
      finishedAt: new Date().toISOString(),
      ownerPid: null,
    });
    this.emit("progress");
  }

  /**
   * One slot of the pool. A slot asks its next example as soon as it has handed an answer to the storage: the
   * commit (at once, or with the others of its window) costs no request time. At
   * most `maxUnstored` answers wait for their commit, counting those being asked; a slot that would exceed it
   * waits first.
   */
  private async worker(): Promise<void> {
    const { items } = this.deps;
    while (!this.stopping) {
      await this.unstored.room();
      let sel: Selected | undefined;
      try {
        sel = await this.take();
      } catch (err) {
        this.unstored.release();
        await this.stop("failed", `the run's examples could not be read: ${(err as Error).message}`);
        return;
      }
      // none left, or the job stopped while the page was read: the example is asked on resume
      if (!sel || this.stopping) {
        this.unstored.release();
        break;
      }
      const spend = this.estimate(sel);
      if (spend && !this.budget.take(spend.tokens, spend.cost)) {
        // the next request would take the run past a cap: it is not sent; a resume with a higher cap asks it
        this.unstored.release();
        await this.stop("stopped", null);
        return;
      }
      let decisions: Awaited<ReturnType<DecisionDecider["decideAll"]>>;
      try {
        decisions = await this.ask(sel);
      } catch (err) {
        if (spend) this.budget.give(spend.tokens, spend.cost);
        if (err instanceof AbortError && this.aborter.signal.aborted) {
          this.unstored.release(); // stopped while it waited for the rate limit: asked again on resume
          return;
        }
        const message =
          err instanceof ServiceError
            ? err.message
            : `example ${JSON.stringify(sel.example.id)} could not be asked: ${(err as Error).message}`;
        this.unstored.release();
        await this.stop("failed", message);
        return;
      }
      const result = this.priced(exampleResult(this.runId, sel, items, decisions));
      const commit = this.store(sel, result);
      // a capped run's estimate is given back once the answer is counted (spent) or could not be stored
      this.unstored.add(spend ? commit.finally(() => this.budget.give(spend.tokens, spend.cost)) : commit);
    }
  }

  /** The next example to ask, reading the next page when this one is spent; undefined once none is left. */
  private async take(): Promise<Selected | undefined> {
    while (this.next >= this.page.length) {
      if (this.reading === null || this.stopping) return undefined;
      this.reading ??= this.deps.examples.next().then(
        (page) => {
          this.page = page;
          this.next = 0;
          this.reading = page.length ? undefined : null;
        },
        (err) => {
          this.reading = undefined;
          throw err;
        },
      );
      await this.reading;
    }
    return this.page[this.next++];
  }

  /** The estimate a capped run's budget takes for an example's request; null when the run has no cap. */
  private estimate(sel: Selected): { tokens: number; cost: number } | null {
    if (!this.budget.capped) return null;
    const { decider, items, prices } = this.deps;
    if (this.questionTokens < 0) this.questionTokens = itemTokens(items);
    const tokens = requestTokens(wireState(sel.example), this.questionTokens, decider.maxLen);
    const cost = prices ? (priceCost(tokens, outputTokens(items), prices) ?? 0) : 0;
    return { tokens, cost };
  }

  /** A result's cost: the reply's own `cost` when it has one, else from the server's prices (0 without). */
  private priced(result: ExampleResult): ExampleResult {
    const prices = this.deps.prices;
    if (!prices || result.record?.cost != null) return result;
    const cost = priceCost(result.inputTokens, result.outputTokens, prices);
    return cost === null ? result : { ...result, cost };
  }

  /** Stores one answered example, then counts it; false when it could not be stored (the run has stopped). */
  private async store(sel: Selected, result: ExampleResult): Promise<boolean> {
    try {
      await this.deps.storage.recordExample(result);
    } catch (err) {
      // a chunk put back after its worker died may ask an example that worker stored: stored once, counted once
      if (this.deps.chunk && err instanceof AlreadyStored) return false;
      await this.stop(
        "failed",
        `the answer to example ${JSON.stringify(sel.example.id)} could not be stored: ${(err as Error).message}`,
      );
      return false;
    }
    const c = this.counters;
    c.done++;
    for (const p of result.predictions) {
      if (p.status === "answered") c.answered++;
      else if (p.status === "unknown") c.unknown++;
      else c.escalated++;
    }
    if (result.failed) c.errors++;
    c.inputTokens += result.inputTokens;
    c.outputTokens += result.outputTokens;
    c.reasoningTokens += result.reasoningTokens;
    c.cost += result.cost;
    this.latency.add(result.ms);
    this.doneThisSession++;
    this.emit("progress");
    return true;
  }

  private async work(): Promise<JobOutcome> {
    const { storage, run, examples } = this.deps;
    const workers = Math.max(1, Math.min(run.concurrency, examples.count));
    await Promise.all(Array.from({ length: workers }, () => this.worker()));
    await this.unstored.drained();
    if (this.waitTimer) clearInterval(this.waitTimer);
    this.waitTimer = null;
    this.settled = true;
    const elapsed = performance.now() - this.startedAt;
    if (this.outcome === null) this.outcome = "done";
    const outcome = this.outcome;
    try {
      await storage.addActiveMs(this.runId, elapsed);
      if (outcome === "done" && !this.deps.chunk) {
        await storage.updateRun(this.runId, {
          status: "done",
          error: null,
          finishedAt: new Date().toISOString(),
          ownerPid: null,
          // computed again from this session's answers too (engine.ts stores them while the run stays done)
          headline: null,
          stats: null,
        });
      } else if (outcome === "closed") {
        await storage.updateRun(this.runId, { ownerPid: null });
      }
    } catch {
      // The storage is closing: the run stays as stored, and the next start resumes it.
    }
    this.deps.onSettled?.(outcome);
    this.emit("done", outcome);
    return outcome;
  }
}

/** A run's progress: its counters, with what only the caller knows (request times, speed, waiting, caps). */
export function progressOf(
  total: number,
  c: RunCounters,
  rest: Pick<Progress, "latency" | "examplesPerSecond" | "waitingForRateLimit" | "budget">,
): Progress {
  return {
    total,
    done: c.done,
    answered: c.answered,
    unknown: c.unknown,
    escalated: c.escalated,
    errors: c.errors,
    usage: {
      input_tokens: c.inputTokens,
      output_tokens: c.outputTokens,
      reasoning_tokens: c.reasoningTokens,
    },
    cost: c.cost,
    ...rest,
  };
}

/** The caps a run's progress shows its spend against; null when it has none. */
export function budgetOf(run: Pick<StoredRun, "maxCost" | "maxInputTokens">): Progress["budget"] {
  return run.maxCost === null && run.maxInputTokens === null
    ? null
    : { maxCost: run.maxCost, maxInputTokens: run.maxInputTokens };
}
