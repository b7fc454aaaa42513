/**
 * Storing answered examples: each example (its request facts, one row per item with its analysis columns, the
 * run's counters) is written whole in one transaction, as it arrives, or with the others that arrived in the same
 * window when answers come by the thousand a second (GroupQueue). `write` resolves once the transaction has
 * committed: an example counts as stored (and is never asked again) only then. An example whose (run, example) is
 * stored already is skipped whole and counted nowhere: its write rejects with AlreadyStored. The transactions run on the event
 * loop's own connection: on 2 cores, which the event loop and a local decision server keep busy, a writer thread
 * could not run beside them and only added its hand-off (apps/api/bench/RESULTS.md, engine benchmark).
 */

import { performance } from "node:perf_hooks";
import type Database from "better-sqlite3";
import type { ItemSpec } from "../analysis/item-spec.js";
import {
  ANSWER_ROW,
  addCounters,
  answerParams,
  COUNTER_COLUMNS,
  type CounterSums,
  LOOSE_COLUMNS,
  looseValues,
  VALUE_ROW,
  valueRowOf,
} from "./answer-rows.js";
import { AlreadyStored } from "./errors.js";
import { CHUNK_ROWS, packChunks } from "./item-columns.js";
import { valueColumns } from "./item-values.js";
import type { Raw } from "./rows.js";
import type { ExampleResult } from "./types.js";

/** `(column, ...) VALUES (@field, ...)` of a row's fields and their columns. */
function namedValues(row: Record<string, string>): string {
  const fields = Object.keys(row);
  return `(${Object.values(row).join(", ")}) VALUES (${fields.map((f) => `@${f}`).join(", ")})`;
}

const SQL = {
  /** An example already stored is skipped (no change): its write rejects with AlreadyStored. */
  example: `INSERT INTO run_examples ${namedValues(ANSWER_ROW)} ON CONFLICT (run_id, example_id) DO NOTHING`,
  counters: `UPDATE runs SET ${Object.entries(COUNTER_COLUMNS)
    .map(([field, column]) => `${column} = ${column} + @${field}`)
    .join(", ")} WHERE id = @runId`,
  specs: "SELECT items FROM runs WHERE id = ?",
  setSpecs: "UPDATE runs SET items = ? WHERE id = ?",
};

/** Inserts an example's loose item_values row (also used by the migration that fills them for older runs). */
export const ITEM_VALUES_INSERT = `INSERT INTO item_values ${namedValues(VALUE_ROW)}`;

/** The loose rows of a run (every item's values in each), in run order. */
export const LOOSE_VALUES_SELECT = `SELECT ${LOOSE_COLUMNS} FROM item_values WHERE run_id = ? ORDER BY ordinal`;

/**
 * Packs every loose row of a run into chunks, one set per item (item-columns.ts), and marks the run's stored
 * examples as packed. Run by the commit that brings a run's loose rows to CHUNK_ROWS, and by the migration.
 */
export function packer(db: Database.Database): (runId: string) => void {
  const specs = db.prepare(SQL.specs).pluck();
  const loose = db.prepare(LOOSE_VALUES_SELECT);
  const next = db
    .prepare("SELECT coalesce(max(chunk) + 1, 0) FROM item_chunks WHERE run_id = ? AND item_index = ?")
    .pluck();
  const insert = db.prepare("INSERT INTO item_chunks (run_id, item_index, chunk, data) VALUES (?, ?, ?, ?)");
  const drop = db.prepare("DELETE FROM item_values WHERE run_id = ?");
  const packed = db.prepare("UPDATE runs SET packed = done WHERE id = ?");
  return (runId) => {
    const items = JSON.parse((specs.get(runId) as string | undefined) ?? "[]") as ItemSpec[];
    const rows = loose.all(runId) as Raw[];
    items.forEach((spec, index) => {
      let chunk = next.get(runId, index) as number;
      for (const data of packChunks(valueColumns(spec).length, looseValues(rows, index))) {
        insert.run(runId, index, chunk++, data);
      }
    });
    drop.run(runId);
    packed.run(runId);
  };
}

/** The error of each example of a group (null: committed; AlreadyStored: skipped whole). */
type GroupOutcome = (Error | null)[];

/**
 * Commits a group of examples on `db` in one immediate transaction, with one update of each run's counters; an
 * example whose (run, example) is stored already is skipped whole. When the transaction fails (a run that is not
 * there, an ordinal taken twice), each example is committed alone so that one bad example does not take the
 * others with it. Each decision's analysis columns follow the run's item specs (stored with the run; an item the
 * run's dataset did not name, e.g. a test's run, gets a spec read from its first decision, stored then).
 */
function groupCommitter(db: Database.Database): (group: ExampleResult[]) => GroupOutcome {
  const example = db.prepare(SQL.example);
  const values = db.prepare(ITEM_VALUES_INSERT);
  const counters = db.prepare(SQL.counters);
  const readSpecs = db.prepare(SQL.specs).pluck();
  const loose = db.prepare("SELECT done - packed FROM runs WHERE id = ?").pluck();
  const pack = packer(db);
  const writeSpecs = db.prepare(SQL.setSpecs);
  /** Inserts an example's rows; false when it is stored already (nothing inserted). */
  const rows = (r: ExampleResult, specsOf: Map<string, ItemSpec[]>): boolean => {
    if (example.run(answerParams(r)).changes === 0) return false;
    let specs = specsOf.get(r.runId);
    if (!specs) {
      specs = JSON.parse((readSpecs.get(r.runId) as string | undefined) ?? "[]") as ItemSpec[];
      specsOf.set(r.runId, specs);
    }
    const made = valueRowOf(r, specs);
    if (made.added) writeSpecs.run(JSON.stringify(specs), r.runId);
    values.run(made.row);
    return true;
  };
  const commit = db.transaction((group: ExampleResult[]): GroupOutcome => {
    const sums = new Map<string, CounterSums>();
    // each run's item specs, read once per group
    const specsOf = new Map<string, ItemSpec[]>();
    const outcome = group.map((r) => {
      if (!rows(r, specsOf)) return new AlreadyStored(r.runId, r.exampleId);
      addCounters(sums, r);
      return null;
    });
    for (const [runId, sum] of sums) {
      counters.run({ runId, ...sum });
      // packs a run's loose rows once CHUNK_ROWS examples of it are loose
      if ((loose.get(runId) as number) >= CHUNK_ROWS) pack(runId);
    }
    return outcome;
  });
  return (group) => {
    try {
      return commit.immediate(group);
    } catch (err) {
      if (group.length === 1) return [err instanceof Error ? err : new Error(String(err))];
      return group.flatMap((r) => {
        try {
          return commit.immediate([r]);
        } catch (err) {
          return [err instanceof Error ? err : new Error(String(err))];
        }
      });
    }
  };
}

/**
 * Commits of answers run at most once per COMMIT_WINDOW_MS on average, with an allowance of COMMIT_BURST: an
 * answer handed to the writer is committed at once, in the call that hands it over, while the allowance lasts, so
 * a run at up to hundreds of answers a second, bursts included, commits each as it arrives and nothing that
 * arrived waits behind other work of the event loop. Once the allowance is spent (a stream of thousands of answers
 * a second), answers wait for the next commit, at most one window later, and are committed together: each commit
 * appends every page it touched to the write-ahead log, and committing each answer of a stream alone would rewrite
 * the same pages again and again. A killed process loses at most the answers of one window (and those it had not
 * read yet), which are asked again.
 */
const COMMIT_WINDOW_MS = 2;

/** Commits that may run at once in a row before answers wait for the window (see COMMIT_WINDOW_MS). */
export const COMMIT_BURST = 16;

/** Most examples one commit takes. */
export const GROUP_COMMIT_MAX = 256;

type Waiting = { write: ExampleResult; resolve: () => void; reject: (e: Error) => void };

/**
 * Gathers writes into groups of at most GROUP_COMMIT_MAX and hands each to `commit`: at once while its allowance
 * of `burst` hand-overs lasts (it grows back by one per `windowMs`), else as soon as it has grown back (at the
 * next write that finds it so, or by a timer), with every write queued meanwhile. No write waits longer than a
 * window once the allowance is spent, however long a stream of writes goes on.
 */
export class GroupQueue {
  private queue: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private allowance: number;
  private at = performance.now();
  private closed = false;

  constructor(
    private readonly commit: (group: Waiting[]) => void,
    private readonly windowMs = 0,
    private readonly burst = COMMIT_BURST,
  ) {
    this.allowance = burst;
  }

  push(write: ExampleResult): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the storage is closed: nothing more can be written"));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (this.refill() >= 1 || this.queue.length >= GROUP_COMMIT_MAX) this.drain();
      else this.timer ??= setTimeout(() => this.drain(), Math.ceil((1 - this.allowance) * this.windowMs));
    });
  }

  /** The allowance now (it grows by one per window, up to `burst`). */
  private refill(): number {
    const now = performance.now();
    const grown = this.windowMs > 0 ? (now - this.at) / this.windowMs : this.burst;
    this.allowance = Math.min(this.burst, this.allowance + grown);
    this.at = now;
    return this.allowance;
  }

  /** Hands over what is queued now. */
  drain(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.queue.length) return;
    this.allowance = Math.max(0, this.refill() - 1);
    while (this.queue.length) this.commit(this.queue.splice(0, GROUP_COMMIT_MAX));
  }

  /** Hands over what is queued, then refuses every later write. */
  close(): void {
    this.drain();
    this.closed = true;
  }
}

/** Stores answered examples on `db`: `write` resolves once the example has committed (in the write-ahead log). */
export class AnswerWriter {
  private readonly groups: GroupQueue;

  constructor(db: Database.Database) {
    const commit = groupCommitter(db);
    this.groups = new GroupQueue((group) => {
      const outcome = commit(group.map((g) => g.write));
      group.forEach((w, i) => {
        const error = outcome[i];
        if (error) w.reject(error);
        else w.resolve();
      });
    }, COMMIT_WINDOW_MS);
  }

  /** Resolves once the example is committed; rejects with AlreadyStored or the database's error. */
  write(result: ExampleResult): Promise<void> {
    return this.groups.push(result);
  }

  /** Commits what is queued, then stops taking writes. */
  close(): void {
    this.groups.close();
  }
}
