/** Confidence histogram of right and wrong answers, its scales and its axis. */

import type { ItemReport } from "@decision-workbench/api/shapes";
import { logTicks, niceTicks } from "./axis";

/**
 * How the histogram's height is read: answers counted on a linear or a log axis (the log axis keeps a small
 * wrong group visible next to a large right one), or each group as a share (%) of itself.
 */
export const HISTOGRAM_SCALES = ["count", "log", "share"] as const;
/** One of the scales. */
export type HistogramScale = (typeof HISTOGRAM_SCALES)[number];
/** The URL parameter that holds the scale (`?hist=log`); the default, count, is left out. */
const SCALE_PARAM = "hist";

/** One bar pair of the confidence histogram (percent units). */
export interface HistogramBar {
  /** Bin centre (%). */
  x: number;
  /** "40–45%". */
  range: string;
  /** Bar heights in the scale's unit: counts, or shares (%) of their group; null draws no bar (0 on a log axis). */
  right: number | null;
  wrong: number | null;
  /** Answers in the bin, whatever the scale. */
  rightCount: number;
  wrongCount: number;
  total: number;
  /** Share of the bin's answers that are wrong (NaN for an empty bin). */
  wrongShare: number;
}

/** Bars from the report's histogram in one scale: counts (linear or log) or shares (%) of each group. */
export function confidenceHistogram(
  h: ItemReport["histogram"],
  scale: HistogramScale = "count",
): HistogramBar[] {
  const rightTotal = h.reduce((s, b) => s + b.right, 0);
  const wrongTotal = h.reduce((s, b) => s + b.wrong, 0);
  const height = (n: number, groupTotal: number): number | null => {
    if (scale === "share") return groupTotal ? (n / groupTotal) * 100 : 0;
    if (scale === "log") return n > 0 ? n : null;
    return n;
  };
  return h.map((b) => {
    const total = b.right + b.wrong;
    return {
      x: ((b.lo + b.hi) / 2) * 100,
      range: `${Math.round(b.lo * 100)}–${Math.round(b.hi * 100)}%`,
      right: height(b.right, rightTotal),
      wrong: height(b.wrong, wrongTotal),
      rightCount: b.right,
      wrongCount: b.wrong,
      total,
      wrongShare: total ? b.wrong / total : Number.NaN,
    };
  });
}

/** The histogram's y axis: evenly spaced nice ticks from 0 (count, share), or powers of ten from below 1 (log). */
export function histogramAxis(
  bars: HistogramBar[],
  scale: HistogramScale,
): { scale: "linear" | "log"; domain: [number, number]; ticks: number[]; label: string } {
  const max = Math.max(0, ...bars.flatMap((b) => [b.right ?? 0, b.wrong ?? 0]));
  if (scale === "log") {
    const ticks = logTicks(max);
    // From 0.5, so a bin of one answer still draws a bar.
    return { scale: "log", domain: [0.5, ticks[ticks.length - 1]], ticks, label: "Count (log scale)" };
  }
  const ticks = niceTicks(scale === "count" ? Math.max(max, 4) : max);
  return {
    scale: "linear",
    domain: [0, ticks[ticks.length - 1]],
    ticks,
    label: scale === "share" ? "Share of group (%)" : "Count",
  };
}

/** The scale named in a link (`?hist=`); anything else is the default, count. */
export function readHistogramScale(sp: URLSearchParams): HistogramScale {
  const v = sp.get(SCALE_PARAM);
  return (HISTOGRAM_SCALES as readonly string[]).includes(v ?? "") ? (v as HistogramScale) : "count";
}

/** The parameters with `scale` set (the default left out, so links stay short). */
export function writeHistogramScale(sp: URLSearchParams, scale: HistogramScale): URLSearchParams {
  const next = new URLSearchParams(sp);
  if (scale === "count") next.delete(SCALE_PARAM);
  else next.set(SCALE_PARAM, scale);
  return next;
}

/** Totals and mean confidence of right and wrong answers (from bin centres). */
export function histogramSummary(h: ItemReport["histogram"]): {
  right: number;
  wrong: number;
  meanRight: number;
  meanWrong: number;
} {
  let right = 0;
  let wrong = 0;
  let sr = 0;
  let sw = 0;
  for (const b of h) {
    const mid = (b.lo + b.hi) / 2;
    right += b.right;
    wrong += b.wrong;
    sr += mid * b.right;
    sw += mid * b.wrong;
  }
  return {
    right,
    wrong,
    meanRight: right ? sr / right : Number.NaN,
    meanWrong: wrong ? sw / wrong : Number.NaN,
  };
}
