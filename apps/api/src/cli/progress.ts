/** Progress output of long commands: a bar redrawn in place on a terminal, plain lines otherwise. */

import type { Progress } from "../shapes/runs.js";

/** "waiting for rate limit, N s" (N whole seconds, rounded up). */
export function rateLimitText(seconds: number): string {
  return `waiting for rate limit, ${Math.max(1, Math.ceil(seconds))} s`;
}

/** "input tokens 1200 of 5000, cost 0.0012 of 0.01": a run's spend against its caps ("" without caps). */
export function budgetText(p: Progress): string {
  if (!p.budget) return "";
  const parts: string[] = [];
  if (p.budget.maxInputTokens !== null)
    parts.push(`input tokens ${p.usage.input_tokens} of ${p.budget.maxInputTokens}`);
  if (p.budget.maxCost !== null) parts.push(`cost ${round(p.cost)} of ${p.budget.maxCost}`);
  return parts.join(", ");
}

/** A cost to 6 significant digits. */
export function round(x: number): number {
  return Number(x.toPrecision(6));
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
    const budget = budgetText(p);
    return `${p.done}/${p.total} (${pct}%) answered ${p.answered} unknown ${p.unknown} escalated ${p.escalated} errors ${p.errors} | ${rate} ex/s | p50 ${p.latency.p50} ms${waiting}${budget ? ` | ${budget}` : ""}`;
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
