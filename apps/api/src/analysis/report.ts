import {
  type Binary,
  calibrationReport,
  classViews,
  classwiseEce,
  classwiseReliability,
  confusionMatrix,
  type Labelled,
  type MultiLabel,
  multiLabelScores,
  optionScores,
  smoothReliability,
} from "@decision-workbench/calibration";
import type { Bin, ItemReport, OptionReport, ReportQuery } from "../shapes/reports.js";
import { binsOf, confidenceHistogram, toBin } from "./bins.js";
import { ANSWERED, type ItemData, UNKNOWN, usabilityCounts } from "./matrix.js";
import { itemMetrics } from "./metrics.js";
import { RATE_INTERVAL, rateOf } from "./rates.js";
import { riskCoverageCurve, unknownReport } from "./selective.js";
import { thresholdCurves } from "./thresholds.js";
import { libraryData, topView } from "./views.js";

/** The report tests import the report's type from here. */

/**
 * Options of an item report: the report query's bins (15), binning ("width"), view ("top"), headline resamples
 * (absent: see autoResamples), interval and ci, and the bootstrap seed (0).
 */
export type ReportOptions = Omit<ReportQuery, "item" | "split"> & { seed?: number };

/** Resamples of each option's ECE interval in the classwise view (one report per option). */
const OPTION_ECE_RESAMPLES = 200;
/**
 * Largest rows x options whose per-option ECE intervals are computed. One report per option (200 resamples) took,
 * for 10 options, 160 ms at 5,000 rows (3.3x the item's whole report with 1000 resamples, same run), 400 ms at
 * 20,000 rows and 4.3 s at 100,000 rows: 50,000 keeps the classwise view near 0.15 s.
 */
export const OPTION_ECE_BUDGET = 50_000;

/**
 * One option's one-vs-rest ECE (the classwise view only), bias-corrected with its bias-aware interval (the method of
 * the item's classwise ECE, on at most `OPTION_ECE_RESAMPLES` resamples), and its plain value. Items above
 * `OPTION_ECE_BUDGET` rows x options get the plain value alone (estimate [plain, null, null], resamples 0).
 */
function optionEce(
  v: { p: Float64Array; y: Uint8Array },
  bins: number,
  resamples: number,
  seed: number,
): NonNullable<OptionReport["ece"]> {
  if (resamples === 0) {
    const plain = classwiseEce({ probs: v.p, k: 1, labels: v.y } as MultiLabel, { bins });
    return { estimate: [plain, null, null], plain, resamples: 0 };
  }
  const r = calibrationReport({ probs: v.p, k: 1, labels: v.y } as MultiLabel, { bins, resamples, seed });
  return { estimate: r.intervals.classwiseEce, plain: r.plugin.classwiseEce, resamples };
}

/** How the consistency test is computed, in words with its reference. */
const CONSISTENCY_METHOD =
  "consistency resampling: outcomes redrawn as Bernoulli(confidence), the top-label equal-width ECE recomputed [Brocker & Smith 2007]";

type Score = ReportBase["scores"][number];

/** One option's bins and scores, its precision and recall as x of n (true positives of predicted, of support). */
function optionReport(option: string, bins: Bin[], s: Score): OptionReport {
  const tp = Math.round(s.precision * s.predicted);
  return { option, bins, ...s, rates: { precision: rateOf(tp, s.predicted), recall: rateOf(tp, s.support) } };
}

/** The pooled one-vs-rest problem: every (option probability, option is gold) pair of every row. */
function pooledClasswise(d: Labelled | MultiLabel): Binary {
  const views = classViews(d);
  const n = views.reduce((s, v) => s + v.p.length, 0);
  const p = new Float64Array(n);
  const y = new Uint8Array(n);
  let at = 0;
  for (const v of views) {
    p.set(v.p, at);
    y.set(v.y, at);
    at += v.p.length;
  }
  return { p, y };
}

/** The parts of a report that do not depend on `binning` or `view` (the costly ones), computed once per options. */
export interface ReportBase
  extends Pick<
    ItemReport,
    | "counts"
    | "resamples"
    | "metrics"
    | "intervals"
    | "consistency"
    | "plugin"
    | "smooth"
    | "confusion"
    | "thresholds"
    | "unknown"
    | "riskCoverage"
    | "aurc"
  > {
  key: string;
  topBins: { width: Bin[]; mass: Bin[] };
  topHistogram: ItemReport["histogram"];
  scores: Pick<OptionReport, "precision" | "recall" | "f1" | "support" | "predicted">[];
}

/** The cache key of a report base: the options it depends on. */
export function baseKey(opts: ReportOptions): string {
  return [
    opts.bins ?? 15,
    opts.resamples ?? "auto",
    opts.seed ?? 0,
    opts.interval ?? "wilson",
    opts.ci ?? "auto",
  ].join("|");
}

/** Computes the binning- and view-independent parts of an item's report. */
export function reportBase(d: ItemData, opts: ReportOptions = {}): ReportBase {
  const bins = opts.bins ?? 15;
  const interval = opts.interval ?? "wilson";
  const u = usabilityCounts(d);
  let answered = 0;
  let unknown = 0;
  for (let i = 0; i < d.status.length; i++) {
    if (d.status[i] === ANSWERED) answered++;
    else if (d.status[i] === UNKNOWN) unknown++;
  }
  const counts = {
    total: d.status.length,
    answered,
    unknown,
    escalated: u.escalated,
    invalid: u.invalid,
    unlabelled: u.unlabelled,
  };
  const key = baseKey(opts);
  if (d.m === 0) {
    return {
      key,
      counts,
      resamples: { headline: 0, secondary: 0, classwise: 0 },
      metrics: null,
      intervals: null,
      topBins: { width: [], mass: [] },
      topHistogram: [],
      scores: [],
      riskCoverage: [],
      aurc: null,
    };
  }
  const data = libraryData(d);
  const top = topView(d);
  const { metrics, intervals, report, resamples } = itemMetrics(d, {
    bins,
    resamples: opts.resamples,
    seed: opts.seed ?? 0,
    interval,
    ci: opts.ci ?? "auto",
  });
  const scores = d.multi
    ? multiLabelScores(data as MultiLabel).labels
    : optionScores(data as Labelled).options;
  const sm = smoothReliability(top, { points: 101, sigma: report.smoothEce.sigma });
  const rc = riskCoverageCurve(top, u.escalated);
  const out: ReportBase = {
    key,
    counts,
    resamples,
    metrics,
    intervals,
    consistency: {
      statistic: report.consistency.statistic,
      pValue: report.consistency.pValue,
      resamples: report.consistency.resamples,
      method: CONSISTENCY_METHOD,
    },
    plugin: {
      ece: report.plugin.ece,
      eceMass: report.plugin.eceMass,
      mce: report.plugin.mce,
      mceMass: report.plugin.mceMass,
      classwiseEce: report.plugin.classwiseEce,
      debiasedL2: report.plugin.debiasedCalibrationError,
      smoothEce: report.plugin.smoothEce,
    },
    topBins: { width: report.reliability.width.map(toBin), mass: report.reliability.mass.map(toBin) },
    topHistogram: confidenceHistogram(top),
    scores,
    smooth: sm.t.map((x, i) => ({ x, y: sm.accuracy[i], density: sm.density[i] })),
    riskCoverage: rc.riskCoverage,
    aurc: rc.aurc,
  };
  if (!d.multi) out.confusion = { labels: d.columns, matrix: confusionMatrix(data as Labelled) };
  const th = thresholdCurves(d);
  if (th) out.thresholds = th;
  const unk = unknownReport(d, top);
  if (unk) out.unknown = unk;
  return out;
}

/**
 * The report of one item from its typed rows (already restricted to the wanted split). `base` (from reportBase with
 * the same bins, resamples, seed, interval and ci) saves the costly part when only `binning` or `view` change.
 */
export function itemReport(
  d: ItemData,
  split: string,
  opts: ReportOptions = {},
  base?: ReportBase,
): ItemReport {
  const bins = opts.bins ?? 15;
  const binning = opts.binning ?? "width";
  const view = opts.view ?? "top";
  const interval = opts.interval ?? "wilson";
  const b = base && base.key === baseKey(opts) ? base : reportBase(d, opts);
  const head = {
    item: d.spec,
    split,
    n: d.m,
    counts: b.counts,
    resamples: b.resamples,
    seed: opts.seed ?? 0,
    level: 0.95,
    metrics: b.metrics,
    intervals: b.intervals,
    rateInterval: RATE_INTERVAL,
  };
  if (d.m === 0) {
    return {
      ...head,
      bins: { width: [], mass: [], count: bins, binning, view },
      perOption: [],
      histogram: [],
      riskCoverage: [],
      aurc: null,
    };
  }
  const data = libraryData(d);
  let diagram = b.topBins;
  let histogram = b.topHistogram;
  if (view === "classwise") {
    const pooled = pooledClasswise(data);
    diagram = {
      width: binsOf(pooled, { bins, interval, binning: "width" }),
      mass: binsOf(pooled, { bins, interval, binning: "mass" }),
    };
    histogram = confidenceHistogram(pooled);
  }
  const perBins = classwiseReliability(data, { bins, binning, interval });
  const eceResamples =
    d.m * d.k <= OPTION_ECE_BUDGET ? Math.min(b.resamples.headline, OPTION_ECE_RESAMPLES) : 0;
  const perEce =
    view === "classwise" ? classViews(data).map((v) => optionEce(v, bins, eceResamples, head.seed)) : null;
  const out: ItemReport = {
    ...head,
    bins: { ...diagram, count: bins, binning, view },
    perOption: d.columns.map((option, j) => {
      const o = optionReport(option, perBins[j].map(toBin), b.scores[j]);
      if (perEce) o.ece = perEce[j];
      return o;
    }),
    histogram,
    riskCoverage: b.riskCoverage,
    aurc: b.aurc,
  };
  if (b.consistency) out.consistency = b.consistency;
  if (b.plugin) out.plugin = b.plugin;
  if (b.smooth) out.smooth = b.smooth;
  if (b.confusion) out.confusion = b.confusion;
  if (b.thresholds) out.thresholds = b.thresholds;
  if (b.unknown) out.unknown = b.unknown;
  return out;
}
