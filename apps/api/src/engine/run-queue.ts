/**
 * The queue of run chunks (BullMQ): on the workbench's PostgreSQL database (BullMQ's PostgreSQL backend, in a
 * schema of its own) or, when a Redis URL is given, on Redis, through the same Queue and Worker classes. A chunk
 * is a range of a run's examples (in run order); any worker process that reaches the queue may take it. A worker
 * that dies holding a chunk stops renewing its lock, and the chunk goes back to the queue for another worker.
 */

import { randomBytes } from "node:crypto";
import { createPostgresBackend, type Job, Queue, Worker, type WorkerOptions, withBackend } from "bullmq";
import { Redis } from "ioredis";

/** One chunk of a run: the examples `from` (inclusive) to `to` (exclusive) of its selection, in run order. */
export interface ChunkData {
  runId: string;
  from: number;
  to: number;
}

/** Where the queue lives: the workbench's PostgreSQL database, or Redis when `redisUrl` is set. */
export interface QueueConnection {
  databaseUrl: string;
  redisUrl?: string | null;
  /**
   * How long a worker's hold on a chunk lasts without renewal (ms, default 30000): a worker renews it while it
   * works, so this is how long a chunk of a dead worker waits before another worker takes it.
   */
  lockMs?: number;
}

/** The queue's name; its schema on PostgreSQL. */
const QUEUE_NAME = "runs";
const SCHEMA = "workbench_queue";
/** Times a chunk is tried when its processing throws (a database error), a second apart and doubling. */
const ATTEMPTS = 5;

type Processor = (job: Job<ChunkData>) => Promise<void>;
type WorkerSettings = Omit<WorkerOptions, "connection">;

/** How to make the queue and its workers on a connection: BullMQ's Redis classes or its PostgreSQL ones. */
function backend(conn: QueueConnection) {
  if (conn.redisUrl) {
    const url = conn.redisUrl;
    const clients: Redis[] = [];
    // one client per queue and worker, ended after them; BullMQ's blocking reads need no retry limit
    const client = () => {
      const redis = new Redis(url, { maxRetriesPerRequest: null });
      redis.on("error", () => {}); // reconnects by itself; a chunk's lock tells the rest
      clients.push(redis);
      return redis;
    };
    return {
      end: async () => {
        await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
      },
      queue: () => new Queue<ChunkData>(QUEUE_NAME, { connection: client() }),
      worker: (p: Processor, o: WorkerSettings) =>
        new Worker<ChunkData>(QUEUE_NAME, p, { ...o, connection: client() }),
    };
  }
  const pg = withBackend(createPostgresBackend);
  const connection = { connectionString: conn.databaseUrl, schema: SCHEMA, migrate: true, max: 4 };
  return {
    end: async () => {},
    queue: () => new pg.Queue<ChunkData>(QUEUE_NAME, { connection }) as unknown as Queue<ChunkData>,
    worker: (p: Processor, o: WorkerSettings) =>
      new pg.Worker<ChunkData>(QUEUE_NAME, p, { ...o, connection }) as unknown as Worker<ChunkData>,
  };
}

/** The run queue of one process: adds and removes chunks, and starts workers on them. */
export class RunQueue {
  private readonly queue: Queue<ChunkData>;
  private readonly workers: Worker<ChunkData>[] = [];
  private readonly backend: ReturnType<typeof backend>;

  constructor(private readonly conn: QueueConnection) {
    this.backend = backend(conn);
    this.queue = this.backend.queue();
  }

  /** Adds a run's chunks; each gets an id of its own (`RUN.FROM.RANDOM`), so a chunk put back is a new job. */
  async add(runId: string, ranges: readonly [number, number][]): Promise<void> {
    if (!ranges.length) return;
    await this.queue.addBulk(
      ranges.map(([from, to]) => ({
        name: "chunk",
        data: { runId, from, to },
        opts: {
          jobId: `${runId}.${from}.${randomBytes(4).toString("hex")}`,
          attempts: ATTEMPTS,
          backoff: { type: "exponential", delay: 1000 },
          removeOnComplete: true,
          removeOnFail: 1000,
        },
      })),
    );
  }

  /** Removes a run's chunks that no worker holds yet (a cancelled, stopped or deleted run). */
  async remove(runId: string): Promise<void> {
    const waiting = await this.queue.getJobs(["waiting", "delayed", "prioritized"]);
    await Promise.all(
      waiting.filter((j) => j?.data?.runId === runId).map((j) => j.remove().catch(() => undefined)),
    );
  }

  /**
   * Starts a worker taking one chunk at a time; `onFailed` hears of a chunk that failed for good (every attempt
   * threw), with the last error.
   */
  work(
    process: (chunk: ChunkData) => Promise<void>,
    onFailed: (chunk: ChunkData, error: Error) => void,
  ): Worker<ChunkData> {
    const lockDuration = this.conn.lockMs ?? 30_000;
    const worker = this.backend.worker((job) => process(job.data), {
      concurrency: 1,
      lockDuration,
      stalledInterval: Math.max(1000, Math.round(lockDuration / 2)),
      // a chunk whose worker dies is put back every time: its stored answers are not asked again
      maxStalledCount: 1000,
    });
    worker.on("failed", (job, err) => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) onFailed(job.data, err);
    });
    worker.on("error", () => {}); // connection errors: BullMQ reconnects; the chunk's lock tells the rest
    this.workers.push(worker);
    return worker;
  }

  /** Closes the workers (each finishes or puts back its chunk first) and the queue. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await this.queue.close();
    await this.backend.end();
  }
}
