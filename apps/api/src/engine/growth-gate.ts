/**
 * Values of running runs that are read from all their stored answers (the headline, the request-time percentiles
 * when another process works on the run), kept until the run has grown by 5 %: each read costs up to a second near
 * 1,000,000 examples, a live view asks several times a second, and the reads of a whole run then add up to ~20 times
 * one read.
 */

import { LRUCache } from "lru-cache";

/** Runs whose values are kept. */
const KEPT_RUNS = 256;
/** Growth (share of the stored examples) after which a value is read again. */
const GROWTH = 0.05;

export class GrowthGate<T extends object> {
  private readonly kept = new LRUCache<string, { done: number; value: T }>({ max: KEPT_RUNS });

  /** The run's value read when it had `done` examples stored, or a new one from `read` once it has grown by 5 %. */
  async get(runId: string, done: number, read: () => Promise<T>): Promise<T> {
    const seen = this.kept.get(runId);
    if (seen && done >= seen.done && done - seen.done < Math.max(1, GROWTH * done)) return seen.value;
    const value = await read();
    this.kept.set(runId, { done, value });
    return value;
  }

  /** Forgets a run's value (it is no longer running). */
  delete(runId: string): void {
    this.kept.delete(runId);
  }
}
