/**
 * The parsed examples of the uploads read last, kept by dataset name and content hash: a team starts run after
 * run on one dataset (one per model or server), and reading and parsing 10,000 examples costs ~40-90 ms of each
 * run's start. Bounded by datasets and by the characters of their stored texts; an upload too large is not kept.
 */

import type { ExampleRow } from "./types.js";

/** Most uploads kept. */
export const RECENT_DATASETS = 2;
/** Most characters (stored states and labels, as JSON) kept in all: ~32-64 MB of strings. */
export const RECENT_CHARS = 32_000_000;

interface Entry {
  hash: string;
  chars: number;
  examples: readonly ExampleRow[];
}

/** Examples of recently read uploads. The arrays handed out are shared: callers must not change them. */
export class RecentExamples {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  /** The examples of `name` when kept for this content hash (an upload's hash changes with its content). */
  get(name: string, hash: string): readonly ExampleRow[] | undefined {
    const e = this.entries.get(name);
    if (!e || e.hash !== hash) return undefined;
    this.entries.delete(name);
    this.entries.set(name, e);
    return e.examples;
  }

  /** Keeps the examples of `name` (read with content hash `hash`), forgetting the least recently read first. */
  set(name: string, hash: string, examples: readonly ExampleRow[], chars: number): void {
    this.forget(name);
    if (chars > RECENT_CHARS) return;
    this.entries.set(name, { hash, chars, examples });
    this.chars += chars;
    for (const [oldest, e] of this.entries) {
      if (this.entries.size <= RECENT_DATASETS && this.chars <= RECENT_CHARS) break;
      this.forget(oldest, e);
    }
  }

  /** Forgets an upload (deleted, or replaced). */
  forget(name: string, e = this.entries.get(name)): void {
    if (!e) return;
    this.entries.delete(name);
    this.chars -= e.chars;
  }

  /** Uploads kept (for the tests). */
  get size(): number {
    return this.entries.size;
  }
}
