import {
  bootstrap,
  type CalibrationReport,
  calibrationReport,
  classwiseEce,
  debiasedCalibrationError,
  type Labelled,
  type MultiLabel,
  mce,
  multiLabelScores,
  multiLabelTop,
  offByOneAccuracy,
  optionScores,
  rps,
  smoothEce,
  subset,
  topLabel,
} from "@decision-workbench/calibration";
import type { ItemData } from "./matrix.js";
import { libraryData } from "./views.js";

/** A number with its bootstrap interval: [point, low, high]. */
export type CI = [number, number, number];
/** A secondary number: its interval is null when it was not resampled (see `ci`). */
export type MaybeCI = [number, number | null, number | null];

/** An item's metrics: the headline ones always with CIs, the secondary ones with CIs when resampled. */
export interface Metrics {
  accuracy: CI;
  ece: CI;
  eceMass: CI;
  /** MCE over the equal-width bins (`mce`) and over the equal-mass bins (`mceMass`): it follows the binning. */
  mce: CI;
  mceMass: MaybeCI;
  brier: CI;
  nll: CI;
  classwiseEce: MaybeCI;
  smoothEce: MaybeCI;
  debiasedL2: MaybeCI;
  /** Score items: ranked probability score and off-by-one accuracy over the levels. */
  rps?: MaybeCI;
  offByOne?: MaybeCI;
  /** Multi-label micro F1; macro F1 for every kind (single-label micro F1 is the accuracy). */
  microF1?: MaybeCI;
  macroF1?: MaybeCI;
}

/** How each metric's interval was obtained, in words with its reference; absent: the metric has no interval. */
export type IntervalMethods = Partial<Record<keyof Metrics, string>>;

const PERCENTILE = "bootstrap percentile over items [Efron 1979]";

/** Which secondary metrics get a bootstrap interval (smooth ECE never does): auto (small items), all (bounded), or none. */
export type CiMode = "auto" | "all" | "headline";

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
 * Work budget of `ci: "all"`: resamples x items x columns. Smooth ECE is never resampled: its bandwidth search
 * repeats a kernel smoothing on a grid that grows as the bandwidth shrinks, too costly to repeat per resample.
 */
export const ALL_CI_BUDGET = 5e6;

/** Thrown when `ci: "all"` would take too long on an item this large (the message says what to ask instead). */
export class TooLargeError extends RangeError {
  override name = "TooLargeError";
}

/** Largest items x columns for which the secondary metrics are resampled in "auto" mode. */
export const AUTO_SECONDARY_SIZE = 20_000;
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

function topOf(d: Labelled | MultiLabel) {
  return (d as MultiLabel).labels !== undefined ? multiLabelTop(d as MultiLabel) : topLabel(d as Labelled);
}

/** The levels-only view of a score item (rows whose gold is `not stated` dropped, levels renormalised). */
export function ordinalData(d: ItemData): Labelled | null {
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
  resamples: { headline: number; secondary: number };
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
  const secondary: Record<
    string,
    { data: Labelled | MultiLabel; stat: Stat; smooth?: boolean; point?: number }
  > = {
    classwiseEce: { data, stat: (x) => classwiseEce(x, { bins: o.bins }), point: report.classwiseEce },
    smoothEce: { data, stat: (x) => smoothEce(topOf(x)).ece, smooth: true, point: report.smoothEce.ece },
    debiasedL2: {
      data,
      stat: (x) => debiasedCalibrationError(topOf(x), { bins: o.bins }),
      point: report.debiasedCalibrationError,
    },
  };
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
    mceMass: [mce(topOf(data), { bins: o.bins, binning: "mass" }), null, null],
    brier: report.brier,
    nll: report.nll,
  };
  const intervals: IntervalMethods = {};
  for (const name of ["accuracy", "ece", "eceMass", "mce", "brier", "nll"] as const)
    intervals[name] = PERCENTILE;
  for (const [name, s] of Object.entries(secondary)) {
    const n = s.data.probs.length / s.data.k;
    const resample = secondaryResamples > 0 && !s.smooth;
    if (resample) {
      metrics[name] = bootstrap(n, (idx) => s.stat(subset(s.data, idx)), {
        resamples: secondaryResamples,
        seed: o.seed,
      });
      intervals[name as keyof Metrics] = PERCENTILE;
    } else {
      metrics[name] = [s.point ?? s.stat(s.data), null, null];
    }
  }
  return {
    metrics: metrics as unknown as Metrics,
    intervals,
    report,
    resamples: { headline: resamples, secondary: secondaryResamples },
  };
}
