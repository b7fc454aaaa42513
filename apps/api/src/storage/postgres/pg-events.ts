/**
 * Run events across processes: PostgreSQL LISTEN/NOTIFY on one channel. A worker says "this run changed" (its
 * progress, its end) and every API instance listening hears the run's id, reads the run and tells its live
 * views. A notice carries only the run's id; at most one per run every `THROTTLE_MS` leaves a process (the last
 * one always goes).
 */

import pg from "pg";

const CHANNEL = "workbench_runs";
/** Least time between two notices of one run from one process. */
const THROTTLE_MS = 200;

/** Run events over a PostgreSQL database. */
export class PgRunEvents {
  private readonly client: pg.Client;
  private readonly ready: Promise<void>;
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly last = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(databaseUrl: string) {
    this.client = new pg.Client({ connectionString: databaseUrl });
    this.client.on("error", () => {}); // a lost connection: views fall back to the run's stored state
    this.client.on("notification", (n) => {
      if (n.channel !== CHANNEL || !n.payload) return;
      for (const f of this.listeners.get(n.payload) ?? []) f();
    });
    this.ready = this.client.connect().then(() => this.client.query(`LISTEN ${CHANNEL}`).then(() => {}));
    this.ready.catch(() => {});
  }

  /** Resolves once this process listens (throws when the database cannot be reached). */
  async listening(): Promise<void> {
    await this.ready;
  }

  /** Says that a run changed; `now` skips the throttle (a run's end). */
  notify(runId: string, now = false): void {
    if (this.closed) return;
    const wait = THROTTLE_MS - (Date.now() - (this.last.get(runId) ?? 0));
    if (now || wait <= 0) {
      const timer = this.timers.get(runId);
      if (timer) clearTimeout(timer);
      this.timers.delete(runId);
      this.send(runId);
    } else if (!this.timers.has(runId)) {
      this.timers.set(
        runId,
        setTimeout(() => {
          this.timers.delete(runId);
          this.send(runId);
        }, wait),
      );
    }
  }

  private send(runId: string): void {
    this.last.set(runId, Date.now());
    if (this.last.size > 10_000) this.last.clear();
    this.ready.then(() => this.client.query("SELECT pg_notify($1, $2)", [CHANNEL, runId])).catch(() => {});
  }

  /** Calls `f` on each notice of a run (from any process, this one included); returns the unsubscribe. */
  on(runId: string, f: () => void): () => void {
    let set = this.listeners.get(runId);
    if (!set) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(f);
    return () => {
      set.delete(f);
      if (!set.size) this.listeners.delete(runId);
    };
  }

  /** Sends the notices still held back, and closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const [runId, timer] of this.timers) {
      clearTimeout(timer);
      this.send(runId);
    }
    this.timers.clear();
    this.closed = true;
    await this.ready.catch(() => {});
    await this.client.end().catch(() => {});
  }
}
