/**
 * The parsed examples of the uploads runs were last started on, kept by dataset name and version (content hash and
 * upload time): a team starts run after run on one dataset (one per model or server), and reading and parsing
 * 10,000 examples costs ~40-90 ms of each run's start. Bounded by datasets and by an estimate of their memory; an
 * upload too large is not kept. The kept examples are frozen: every caller shares them.
 */

import { freezeExamples } from "@decision-workbench/datasets";
import type { ExampleRow } from "./types.js";

/** Most uploads kept. */
export const RECENT_DATASETS = 2;
/** Most estimated bytes kept in all (see `keptBytes`). */
export const RECENT_BYTES = 48_000_000;

/** A stored examples row as SQLite returns it (JSON texts). */
export interface StoredExample {
  id: string;
  state: string;
  labels: string;
  meta: string | null;
}

/**
 * An estimate of the memory an example's parsed form holds: its texts (a string state as one string, a structured
 * one and labels at a few bytes per character of their JSON) and its objects.
 */
export function keptBytes(r: StoredExample): number {
  const state = r.state.startsWith('"') ? r.state.length : 3 * r.state.length;
  return 200 + r.id.length + state + 3 * r.labels.length + 3 * (r.meta?.length ?? 0);
}

interface Entry {
  version: string;
  bytes: number;
  examples: readonly ExampleRow[];
}

/** Examples of recently started-on uploads. */
export class RecentExamples {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  /** The examples of `name` when kept for this version (an upload's version changes when it is replaced). */
  get(name: string, version: string): readonly ExampleRow[] | undefined {
    const e = this.entries.get(name);
    if (!e || e.version !== version) return undefined;
    this.entries.delete(name);
    this.entries.set(name, e);
    return e.examples;
  }

  /**
   * Keeps (frozen) the examples of `name` read at `version`, forgetting the least recently used first; returns
   * them.
   */
  set(name: string, version: string, examples: ExampleRow[], bytes: number): readonly ExampleRow[] {
    this.forget(name);
    const frozen = freezeExamples(examples);
    if (bytes > RECENT_BYTES) return frozen;
    this.entries.set(name, { version, bytes, examples: frozen });
    this.bytes += bytes;
    for (const [oldest, e] of this.entries) {
      if (this.entries.size <= RECENT_DATASETS && this.bytes <= RECENT_BYTES) break;
      this.forget(oldest, e);
    }
    return frozen;
  }

  /** Forgets an upload (deleted, or replaced). */
  forget(name: string, e = this.entries.get(name)): void {
    if (!e) return;
    this.entries.delete(name);
    this.bytes -= e.bytes;
  }

  /** Uploads kept. */
  get size(): number {
    return this.entries.size;
  }
}
