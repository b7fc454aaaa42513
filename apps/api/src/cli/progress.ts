/** Progress output of long commands: a bar redrawn in place on a terminal, plain lines otherwise. */

import type { Progress } from "../engine/types.js";

/** "waiting for rate limit, N s" (N whole seconds, rounded up). */
export function rateLimitText(seconds: number): string {
  return `waiting for rate limit, ${Math.max(1, Math.ceil(seconds))} s`;
}

/** Writes progress to a stream (stderr). */
export class ProgressPrinter {
  private last = 0;
  private lastLine = "";
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly tty = Boolean(out.isTTY),
  ) {}

  private line(p: Progress): string {
    const pct = p.total ? Math.floor((100 * p.done) / p.total) : 100;
    const rate = p.examplesPerSecond.toFixed(1);
    const waiting = p.waitingForRateLimit == null ? "" : ` | ${rateLimitText(p.waitingForRateLimit)}`;
    return `${p.done}/${p.total} (${pct}%) answered ${p.answered} unknown ${p.unknown} escalated ${p.escalated} errors ${p.errors} | ${rate} ex/s | p50 ${p.latency.p50} ms${waiting}`;
  }

  /** Shows progress (a terminal at most 10 times a second, plain lines at most every 2 s or each 10 %). */
  update(progress: Progress | (() => Progress), force = false): void {
    const now = Date.now();
    if (!force && now - this.last < (this.tty ? 100 : 2000)) return;
    const p = typeof progress === "function" ? progress() : progress;
    if (this.tty) {
      this.last = now;
      const width = 24;
      const filled = p.total ? Math.round((width * p.done) / p.total) : width;
      this.out.write(`\r\x1b[2K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${this.line(p)}`);
      return;
    }
    const line = this.line(p);
    if (line === this.lastLine) return;
    this.last = now;
    this.lastLine = line;
    this.out.write(`${line}\n`);
  }

  /** Ends the bar's line. */
  end(p: Progress): void {
    this.update(p, true);
    if (this.tty) this.out.write("\n");
  }
}
