import {
  bootstrap,
  type CalibrationReport,
  calibrationReport,
  type IntervalMethod,
  type Labelled,
  type MultiLabel,
  multiLabelScores,
  offByOneAccuracy,
  optionScores,
  rps,
  subset,
} from "@decision-workbench/calibration";
import type { MaybeCI } from "../shapes/common.js";
import type { IntervalMethods, Metrics, ReportQuery } from "../shapes/reports.js";
import type { ItemData } from "./matrix.js";
import { libraryData } from "./views.js";

/** The library's interval methods (`IntervalMethod`) in words, with their references (packages/calibration/README.md). */
const INTERVAL_METHODS: Readonly<Record<string, string>> = {
  percentile: "percentile bootstrap over items [Efron 1979]",
  "bias-bounded":
    "bias-bounded basic bootstrap over items, bias-corrected point 2θ − mean(θ*) [Efron & Tibshirani 1993, 10.6 and 13.4]",
  "normal-squared":
    "normal interval on the squared scale from the bootstrap standard deviation [Efron & Tibshirani 1993, 13.2; Kumar et al. 2019]",
  "basic-debiased":
    "basic bootstrap of the bias-corrected smooth ECE [Efron & Tibshirani 1993, 13.4; Blasiok & Nakkiran 2023]",
};

/** An interval method in words; a method this table does not know yet is named as the library names it. */
function methodText(method: IntervalMethod): string {
  return INTERVAL_METHODS[method] ?? `${method} (packages/calibration/README.md)`;
}
const PERCENTILE = methodText("percentile");

/**
 * Which classification scores (macro / micro F1, RPS, off-by-one) get a bootstrap interval: auto (small items), all
 * (bounded), or none. The calibration errors always have theirs, from the report's own resamples.
 */
type CiMode = NonNullable<ReportQuery["ci"]>;

/** Resample counts and seed of the metrics. */
export interface MetricOptions {
  bins: number;
  /** Headline resamples; absent: 1000 up to 10,000 items, fewer above (at least 200) so reports stay fast. */
  resamples?: number;
  seed: number;
  interval: "wilson" | "jeffreys";
  ci: CiMode;
}

/**
 * Work budget of `ci: "all"`: resamples x items x columns (each resample recomputes the classification scores).
 */
const ALL_CI_BUDGET = 5e6;

/** Thrown when `ci: "all"` would take too long on an item this large (the message says what to ask instead). */
export class TooLargeError extends RangeError {
  override name = "TooLargeError";
}

/** Largest items x columns for which the secondary metrics are resampled in "auto" mode. */
const AUTO_SECONDARY_SIZE = 20_000;
const AUTO_SECONDARY_RESAMPLES = 200;

/**
 * Default bootstrap resamples for n items: 1000 up to 10,000 items, then about 1e7 / n rounded to hundreds (never
 * below 200), so the work stays near 1e7 item draws: 20,000 items get 500, 50,000 and more get 200. The intervals of
 * large samples are narrow, so fewer resamples cost little precision; a `resamples` query asks for more.
 */
export function autoResamples(n: number): number {
  if (n <= 10_000) return 1000;
  return Math.max(200, Math.round(1e7 / n / 100) * 100);
}

/** The levels-only view of a score item (rows whose gold is `not stated` dropped, levels renormalised). */
function ordinalData(d: ItemData): Labelled | null {
  if (d.spec.kind !== "score" || d.multi) return null;
  const levels = d.spec.options.length;
  const rows: number[] = [];
  for (let u = 0; u < d.m; u++) if (d.gold[u] < levels) rows.push(u);
  if (rows.length === 0 || levels < 2) return null;
  const probs = new Float64Array(rows.length * levels);
  const gold = new Int32Array(rows.length);
  for (let t = 0; t < rows.length; t++) {
    const u = rows[t];
    let s = 0;
    for (let j = 0; j < levels; j++) s += d.probs[u * d.k + j];
    for (let j = 0; j < levels; j++) probs[t * levels + j] = s > 0 ? d.probs[u * d.k + j] / s : 1 / levels;
    gold[t] = d.gold[u];
  }
  return { probs, k: levels, gold };
}

type Stat = (x: Labelled | MultiLabel) => number;

/** The headline metrics (the library's calibration report) and the secondary metrics of the usable rows (m > 0). */
export function itemMetrics(
  d: ItemData,
  o: MetricOptions,
): {
  metrics: Metrics;
  intervals: IntervalMethods;
  report: CalibrationReport;
  resamples: { headline: number; secondary: number; classwise: number };
} {
  const data = libraryData(d);
  const resamples = o.resamples ?? autoResamples(d.m);
  let secondaryResamples =
    o.ci === "auto" && d.m * d.k <= AUTO_SECONDARY_SIZE ? Math.min(resamples, AUTO_SECONDARY_RESAMPLES) : 0;
  if (o.ci === "all") {
    // every resample recomputes each secondary metric from scratch: bound the work, refuse what cannot be bounded
    secondaryResamples = Math.min(resamples, Math.floor(ALL_CI_BUDGET / (d.m * d.k)));
    if (secondaryResamples < 50) {
      throw new TooLargeError(
        `ci=all cannot resample the secondary metrics of ${d.m} rows x ${d.k} options at least 50 times within its budget; use ci=auto or ci=headline, or a smaller split`,
      );
    }
  }
  const report = calibrationReport(data, { bins: o.bins, resamples, seed: o.seed, interval: o.interval });
  // classwise ECE, debiased L2 and smooth ECE come with the report's bias-aware intervals (one pass over the
  // headline resamples); the bootstrap below resamples only the classification scores
  const secondary: Record<string, { data: Labelled | MultiLabel; stat: Stat }> = {};
  if (d.multi) {
    secondary.microF1 = { data, stat: (x) => multiLabelScores(x as MultiLabel).microF1 };
    secondary.macroF1 = { data, stat: (x) => multiLabelScores(x as MultiLabel).macroF1 };
  } else {
    secondary.macroF1 = { data, stat: (x) => optionScores(x as Labelled).macroF1 };
  }
  const ord = ordinalData(d);
  if (ord) {
    secondary.rps = { data: ord, stat: (x) => rps(x as Labelled) };
    secondary.offByOne = { data: ord, stat: (x) => offByOneAccuracy(x as Labelled) };
  }
  const metrics: Record<string, MaybeCI> = {
    accuracy: report.accuracy,
    ece: report.ece,
    eceMass: report.eceMass,
    mce: report.mce,
    mceMass: report.mceMass,
    brier: report.brier,
    nll: report.nll,
    classwiseEce: report.intervals.classwiseEce,
    smoothEce: report.intervals.smoothEce ?? [report.smoothEce.ece, null, null],
    debiasedL2: report.intervals.debiasedCalibrationError,
  };
  const m = report.intervalMethod;
  const intervals: IntervalMethods = {
    accuracy: methodText(m.accuracy),
    ece: methodText(m.ece),
    eceMass: methodText(m.eceMass),
    mce: methodText(m.mce),
    mceMass: methodText(m.mceMass),
    brier: methodText(m.brier),
    nll: methodText(m.nll),
    classwiseEce: methodText(m.classwiseEce),
    debiasedL2: methodText(m.debiasedCalibrationError),
  };
  if (report.intervals.smoothEce) intervals.smoothEce = methodText(m.smoothEce);
  for (const [name, s] of Object.entries(secondary)) {
    const n = s.data.probs.length / s.data.k;
    if (secondaryResamples > 0) {
      metrics[name] = bootstrap(n, (idx) => s.stat(subset(s.data, idx)), {
        resamples: secondaryResamples,
        seed: o.seed,
      });
      intervals[name as keyof Metrics] = PERCENTILE;
    } else {
      metrics[name] = [s.stat(s.data), null, null];
    }
  }
  return {
    metrics: metrics as unknown as Metrics,
    intervals,
    report,
    resamples: { headline: resamples, secondary: secondaryResamples, classwise: report.secondaryResamples },
  };
}
