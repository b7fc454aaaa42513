/** Server-Sent Events for a run: `progress` (at most ~5 a second, the first at once) and a final `done`. */

import type { ServerResponse } from "node:http";
import type { RunEngine } from "../engine/engine.js";
import type { Progress, RunSummary } from "../shapes/runs.js";

/** Minimum time between two progress events. */
const PROGRESS_INTERVAL_MS = 200;
/** A comment line keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

const open = new Set<ServerResponse>();

/** Ends every open event stream (on shutdown). */
export function closeEventStreams(): void {
  for (const res of open) res.end();
  open.clear();
}

/** Streams a run's events on a response whose headers are not sent yet. */
export function streamRun(
  engine: RunEngine,
  summary: RunSummary,
  res: ServerResponse,
  onClose: (f: () => void) => void,
): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  open.add(res);
  const send = (event: string, data: unknown) => {
    if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  let last = 0;
  let sentDone = -1;
  let pending: (() => Progress) | null = null;
  let timer: NodeJS.Timeout | null = null;
  let unfollow: (() => void) | null = null;
  const heartbeat = setInterval(() => {
    if (!res.writableEnded) res.write(": keep-alive\n\n");
  }, HEARTBEAT_MS);
  const cleanup = () => {
    clearInterval(heartbeat);
    if (timer) clearTimeout(timer);
    timer = null;
    unfollow?.();
    unfollow = null;
    open.delete(res);
  };
  const flush = () => {
    timer = null;
    if (pending) {
      const p = pending();
      send("progress", p);
      sentDone = p.done;
      pending = null;
      last = Date.now();
    }
  };
  const finish = (final: RunSummary) => {
    if (timer) clearTimeout(timer);
    timer = null;
    pending = null;
    if (final.progress.done !== sentDone) send("progress", final.progress);
    send("done", final);
    cleanup();
    res.end();
  };
  send("progress", summary.progress);
  sentDone = summary.progress.done;
  last = Date.now();
  onClose(cleanup);
  if (!engine.isActive(summary.id) && summary.status !== "running" && summary.status !== "queued") {
    finish(summary);
    return;
  }
  unfollow = engine.follow(summary.id, {
    progress(p) {
      pending = p;
      const wait = PROGRESS_INTERVAL_MS - (Date.now() - last);
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait);
    },
    done: finish,
  });
  if (!unfollow) {
    // Running in another process (the CLI) or interrupted: nothing will come from this one.
    finish(summary);
  }
}
