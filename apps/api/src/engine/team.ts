/**
 * The parts a process adds on a shared database: the queue of run chunks, run events across processes, the
 * servers' rate lanes and this process's run workers. `workbench serve` gives them to its engine;
 * `workbench worker` runs only the workers.
 */

import type { QueueConfig } from "../config.js";
import type { SecretBox } from "../secrets/box.js";
import type { OutboundPolicy } from "../servers/outbound.js";
import { PgRunEvents } from "../storage/postgres/pg-events.js";
import type { WorkbenchStorage } from "../storage/types.js";
import type { RateLanes } from "./rate-lane.js";
import { SharedRateLanes } from "./rate-shared.js";
import { RunQueue } from "./run-queue.js";
import { RunWorkers } from "./run-worker.js";

/** The team parts of one process. */
export interface Team {
  queue: RunQueue;
  events: PgRunEvents;
  lanes: RateLanes;
  /** Stops the workers (answers in flight stored, unfinished chunks put back), then closes the rest. */
  close(): Promise<void>;
}

/** Opens the queue, the events and the lanes, and starts `config.workers` run workers. */
export async function openTeam(opts: {
  databaseUrl: string;
  config: QueueConfig;
  storage: WorkbenchStorage;
  secrets: SecretBox;
  outbound: OutboundPolicy;
  log?: (message: string) => void;
}): Promise<Team> {
  const events = new PgRunEvents(opts.databaseUrl);
  await events.listening();
  // one lane per server across every process: its limits and its 429 pauses hold for all workers together
  const lanes = new SharedRateLanes(opts.databaseUrl, {
    onError: (err) => opts.log?.(`rate limits fell back to this process's own: ${err.message}`),
  });
  const queue = new RunQueue({
    databaseUrl: opts.databaseUrl,
    redisUrl: opts.config.redisUrl,
    lockMs: opts.config.lockMs,
  });
  const workers = new RunWorkers(
    {
      storage: opts.storage,
      secrets: opts.secrets,
      outbound: opts.outbound,
      lanes,
      queue,
      events,
      log: opts.log,
    },
    opts.config.workers,
  );
  return {
    queue,
    events,
    lanes,
    async close() {
      await workers.close();
      await queue.close();
      await events.close();
      await lanes.close();
    },
  };
}
