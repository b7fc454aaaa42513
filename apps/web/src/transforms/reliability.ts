/** Reliability diagram data: per-bin points with intervals, gap shading, the count histogram, overlays. */

import type { Bin } from "@decision-workbench/api/shapes";
import { plural } from "./format";

/** The API flags bins with fewer items than this as sparse (drawn greyed: their intervals are wide and unreliable). */
export const SPARSE_BIN = 10;

/** One non-empty bin as a point (percent units) with error-bar offsets. */
export interface ReliabilityPoint {
  /** Mean confidence (%). */
  x: number;
  /** Accuracy (%). */
  y: number;
  /** [below, above] offsets of the accuracy interval from y, in percent points (for error bars). */
  err: [number, number];
  /** Interval bounds (%), null when the API gave none. */
  low: number | null;
  high: number | null;
  /** The bin's edges (%). */
  lo: number;
  hi: number;
  count: number;
  /** Fewer than SPARSE_BIN items (the API's `sparse` flag). */
  sparse: boolean;
  /** Accuracy minus confidence (percent points): negative when over-confident. */
  gap: number;
  /** The series (run, before / after) in an overlay. */
  series?: string;
}

/** Points of the non-empty bins, in percent. */
export function reliabilityPoints(bins: Bin[]): ReliabilityPoint[] {
  const out: ReliabilityPoint[] = [];
  for (const b of bins) {
    if (b.count === 0 || b.confidence === null || b.accuracy === null) continue;
    const y = b.accuracy * 100;
    const low = b.low === null ? null : b.low * 100;
    const high = b.high === null ? null : b.high * 100;
    out.push({
      x: b.confidence * 100,
      y,
      err: [low === null ? 0 : Math.max(0, y - low), high === null ? 0 : Math.max(0, high - y)],
      low,
      high,
      lo: b.lo * 100,
      hi: b.hi * 100,
      count: b.count,
      sparse: b.sparse,
      gap: (b.accuracy - b.confidence) * 100,
    });
  }
  return out;
}

/** A shaded rectangle between accuracy and confidence over a bin's width (percent units). */
export interface GapArea {
  x1: number;
  x2: number;
  y1: number;
  y2: number;
  /** "over": confidence above accuracy (the service over-states); "under": below. */
  direction: "over" | "under";
  /** The bin holds few answers: drawn fainter. */
  sparse: boolean;
}

/** Gap rectangles of the non-empty bins (bins with no gap give none). */
export function gapAreas(bins: Bin[]): GapArea[] {
  const out: GapArea[] = [];
  for (const b of bins) {
    if (b.count === 0 || b.confidence === null || b.accuracy === null) continue;
    if (b.confidence === b.accuracy) continue;
    out.push({
      x1: b.lo * 100,
      x2: b.hi * 100,
      y1: Math.min(b.accuracy, b.confidence) * 100,
      y2: Math.max(b.accuracy, b.confidence) * 100,
      direction: b.confidence > b.accuracy ? "over" : "under",
      sparse: b.sparse,
    });
  }
  return out;
}

/** One bar of the count histogram under the diagram. */
export interface CountBar {
  x1: number;
  x2: number;
  count: number;
  /** Share of all binned items. */
  share: number;
}

/** Count bars for every bin (empty bins included, so equal-mass edges stay visible). */
export function countBars(bins: Bin[]): CountBar[] {
  const total = bins.reduce((s, b) => s + b.count, 0);
  return bins.map((b) => ({
    x1: b.lo * 100,
    x2: b.hi * 100,
    count: b.count,
    share: total ? b.count / total : 0,
  }));
}

/** ECE and MCE recomputed from bins (for small multiples, where the API gives bins but no metric). */
export function binCalibrationError(bins: Bin[]): { ece: number; mce: number; n: number } {
  let n = 0;
  let weighted = 0;
  let mce = 0;
  for (const b of bins) {
    if (b.count === 0 || b.confidence === null || b.accuracy === null) continue;
    const gap = Math.abs(b.accuracy - b.confidence);
    n += b.count;
    weighted += b.count * gap;
    if (gap > mce) mce = gap;
  }
  return { ece: n ? weighted / n : Number.NaN, mce: n ? mce : Number.NaN, n };
}

/** One series of an overlay of several runs or of before/after. */
export interface OverlaySeries {
  key: string;
  name: string;
  color: string;
  points: ReliabilityPoint[];
}

/** Distinguishable colours (Okabe-Ito, colour-blind safe) for overlaid series. */
export const SERIES_COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];

/** Overlay series from several bin lists, coloured in order. */
export function overlaySeries(binsList: Bin[][], names: string[]): OverlaySeries[] {
  return binsList.map((bins, i) => {
    const name = names[i] ?? `series ${i + 1}`;
    return {
      key: `s${i}`,
      name,
      color: SERIES_COLORS[i % SERIES_COLORS.length],
      points: reliabilityPoints(bins).map((p) => ({ ...p, series: name })),
    };
  });
}

/**
 * One sentence for a screen reader about a diagram's points: how many answers over how many confidence ranges (the
 * bins), and the widest gap between accuracy and confidence among the ranges that are not sparse ("… over 9
 * confidence ranges; widest gap: over-confident by 12.3 pp around 85% confidence"). It avoids the word "bins", which
 * would give the chart the name of the page's Bins control.
 */
export function reliabilitySummary(points: ReliabilityPoint[]): string {
  if (!points.length) return "no answers";
  const n = points.reduce((s, p) => s + p.count, 0);
  const head = `${plural(n, "answer")} over ${plural(points.length, "confidence range")}`;
  const dense = points.filter((p) => !p.sparse);
  if (!dense.length) return `${head}, all with fewer than ${SPARSE_BIN} answers`;
  const widest = dense.reduce((a, b) => (Math.abs(b.gap) > Math.abs(a.gap) ? b : a));
  const side = widest.gap < 0 ? "over-confident" : "under-confident";
  return `${head}; widest gap: ${side} by ${Math.abs(widest.gap).toFixed(1)} pp around ${widest.x.toFixed(0)}% confidence`;
}
