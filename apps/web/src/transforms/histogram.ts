/** Confidence histogram of right and wrong answers. */

import type { ItemReport } from "@decision-workbench/api/shapes";

/** One bar pair of the confidence histogram (percent units). */
export interface HistogramBar {
  /** Bin centre (%). */
  x: number;
  /** "40–45%". */
  range: string;
  right: number;
  wrong: number;
  total: number;
  /** Share of the bin's answers that are wrong (NaN for an empty bin). */
  wrongShare: number;
}

/** Bars from the report's histogram; with `normalize`, right and wrong become shares (%) of their own group. */
export function confidenceHistogram(h: ItemReport["histogram"], normalize = false): HistogramBar[] {
  const rightTotal = h.reduce((s, b) => s + b.right, 0);
  const wrongTotal = h.reduce((s, b) => s + b.wrong, 0);
  return h.map((b) => {
    const total = b.right + b.wrong;
    return {
      x: ((b.lo + b.hi) / 2) * 100,
      range: `${Math.round(b.lo * 100)}–${Math.round(b.hi * 100)}%`,
      right: normalize ? (rightTotal ? (b.right / rightTotal) * 100 : 0) : b.right,
      wrong: normalize ? (wrongTotal ? (b.wrong / wrongTotal) * 100 : 0) : b.wrong,
      total,
      wrongShare: total ? b.wrong / total : Number.NaN,
    };
  });
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
