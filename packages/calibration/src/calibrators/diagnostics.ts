import { checkLabelled, checkMultiLabel, isMultiLabel } from "../input.js";
import type { Labelled, MultiLabel } from "../types.js";
import { topLabelUnchecked } from "../views.js";
import type { Method } from "./registry.js";

/**
 * The fewest fit items each method is fitted on in `auto` (fewer: it is not tried; forced: fitted with a warning):
 * about ten items per parameter for the scaling fits, ten per bin for histogram binning (10 bins), and the same for
 * isotonic regression, whose steps are as many as the data allow. Vector scaling needs ten per option.
 */
export function minItems(method: Method, k: number): number {
  switch (method) {
    case "identity":
      return 1;
    case "temperature":
      return 10;
    case "platt":
      return 20;
    case "vector":
      return 10 * Math.max(2, k);
    case "beta":
      return 30;
    case "histogram":
    case "isotonic":
      return 100;
    default:
      return 1;
  }
}

/** Findings about fit data, split by what they mean for selection. Internal. */
export interface Diagnosis {
  /** All correct / all wrong, a single class, separable: a fitted calibrator would collapse; identity is kept. */
  degenerate: string[];
  /** Fewer items than some methods need. */
  small: string[];
}

const share = (x: number) => x.toPrecision(3);

/** How the outcomes of a view are named in findings. */
interface Words {
  prefix: string;
  one: string;
  zero: string;
}

/** One outcome vector and its confidences: all one value, or separable (every 0 below every 1). */
function outcomeFindings(p: ArrayLike<number>, y: ArrayLike<number>, w: Words, out: string[]): void {
  const n = y.length;
  let ones = 0;
  let maxZero = Number.NEGATIVE_INFINITY;
  let minOne = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    if (y[i] === 1) {
      ones++;
      if (p[i] < minOne) minOne = p[i];
    } else if (p[i] > maxZero) maxZero = p[i];
  }
  if (ones === n) out.push(`${w.prefix}all ${n} fit items are ${w.one}`);
  else if (ones === 0) out.push(`${w.prefix}all ${n} fit items are ${w.zero}`);
  else if (maxZero < minOne) {
    out.push(
      `${w.prefix}the fit data are separable: every ${w.zero} item's confidence is at most ${share(maxZero)}, every ${w.one} item's at least ${share(minOne)}`,
    );
  }
}

/** The findings of fitDiagnostics, split into degenerate data and too few items. Internal. */
export function diagnose(data: Labelled | MultiLabel): Diagnosis {
  const degenerate: string[] = [];
  const small: string[] = [];
  const multi = isMultiLabel(data);
  const n = multi
    ? checkMultiLabel(data, "fitDiagnostics")
    : checkLabelled(data as Labelled, "fitDiagnostics");
  if (n === 0) return { degenerate: ["the fit split has no items"], small };
  const k = data.k;
  if (multi) {
    const d = data as MultiLabel;
    const p = new Float64Array(n);
    const y = new Float64Array(n);
    for (let j = 0; j < k; j++) {
      for (let i = 0; i < n; i++) {
        p[i] = d.probs[i * k + j];
        y[i] = d.labels[i * k + j];
      }
      outcomeFindings(p, y, { prefix: `label ${j}: `, one: "positive", zero: "negative" }, degenerate);
    }
  } else {
    const d = data as Labelled;
    const classes = new Set<number>();
    for (let i = 0; i < n && classes.size < 2; i++) classes.add(d.gold[i]);
    if (classes.size === 1) degenerate.push(`every fit item's gold is option ${d.gold[0]} (a single class)`);
    const top = topLabelUnchecked(d.probs, n, k, d.gold);
    outcomeFindings(top.p, top.y, { prefix: "", one: "correct", zero: "wrong" }, degenerate);
  }
  const short = (["temperature", "platt", "vector", "beta", "histogram", "isotonic"] as Method[]).filter(
    (m) => !(multi && m === "vector") && n < minItems(m, k),
  );
  if (short.length > 0) {
    small.push(`${n} fit items: fewer than ${short.map((m) => `${m} needs (${minItems(m, k)})`).join(", ")}`);
  }
  return { degenerate, small };
}

/**
 * What is wrong with fit data for calibration, in words (empty when nothing is): every item correct or every item
 * wrong, a single gold class, data separable by the top-label confidence (or, multi-label, a label always or never
 * applying, or separable by its probability), and fewer items than a method needs (see the README's minimum per
 * method). Degenerate data make maximum-likelihood scaling fits run off to T -> 0 or an infinite slope; the fits
 * smooth their targets instead, and `auto` keeps identity.
 */
export function fitDiagnostics(data: Labelled | MultiLabel): string[] {
  const d = diagnose(data);
  return [...d.degenerate, ...d.small];
}
