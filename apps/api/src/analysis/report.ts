import {
  type Binary,
  type Binning,
  classViews,
  classwiseReliability,
  confusionMatrix,
  type Labelled,
  type MultiLabel,
  multiLabelScores,
  optionScores,
  smoothReliability,
} from "@decision-workbench/calibration";
import { type Bin, binsOf, confidenceHistogram, type HistogramBar, toBin } from "./bins.js";
import type { ItemSpec } from "./item-spec.js";
import { ANSWERED, type ItemData, UNKNOWN, usabilityCounts } from "./matrix.js";
import { type CiMode, itemMetrics, type Metrics } from "./metrics.js";
import { type RiskPoint, riskCoverageCurve, type UnknownReport, unknownReport } from "./selective.js";
import { type LabelCurve, thresholdCurves } from "./thresholds.js";
import { libraryData, topView } from "./views.js";

/** Options of an item report (the report endpoint's query). */
export interface ReportOptions {
  /** Bin count of the reliability diagrams and binned metrics (15). */
  bins?: number;
  /** The binning of the per-option bins and the one the diagram shows first ("width"). */
  binning?: Binning;
  /** "top": top-label reliability (default); "classwise": every option's one-vs-rest pairs pooled. */
  view?: "top" | "classwise";
  /** Headline bootstrap resamples (absent: see autoResamples). */
  resamples?: number;
  seed?: number;
  interval?: "wilson" | "jeffreys";
  ci?: CiMode;
}

/** Per-option reliability and precision / recall / F1 (decided by argmax, or at 0.5 for multi-label). */
export interface OptionReport {
  option: string;
  bins: Bin[];
  precision: number;
  recall: number;
  f1: number;
  support: number;
  predicted: number;
}

/** Everything the workbench shows about one item of one run on one split (or several). */
export interface ItemReport {
  item: ItemSpec;
  split: string;
  /** Usable rows measured (not escalated, with an output and a gold label). */
  n: number;
  counts: {
    total: number;
    answered: number;
    unknown: number;
    escalated: number;
    invalid: number;
    unlabelled: number;
  };
  resamples: { headline: number; secondary: number };
  seed: number;
  level: number;
  /** Null when nothing is usable yet. */
  metrics: Metrics | null;
  bins: { width: Bin[]; mass: Bin[]; count: number; binning: Binning; view: "top" | "classwise" };
  perOption: OptionReport[];
  histogram: HistogramBar[];
  smooth?: { x: number; y: number; density: number }[];
  confusion?: { labels: string[]; matrix: number[][] };
  thresholds?: LabelCurve[];
  unknown?: UnknownReport;
  riskCoverage: RiskPoint[];
  aurc: number | null;
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

/** The report of one item from its typed rows (already restricted to the wanted split). */
export function itemReport(d: ItemData, split: string, opts: ReportOptions = {}): ItemReport {
  const bins = opts.bins ?? 15;
  const binning = opts.binning ?? "width";
  const view = opts.view ?? "top";
  const interval = opts.interval ?? "wilson";
  const seed = opts.seed ?? 0;
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
  const base = {
    item: d.spec,
    split,
    n: d.m,
    counts,
    seed,
    level: 0.95,
  };
  if (d.m === 0) {
    return {
      ...base,
      resamples: { headline: 0, secondary: 0 },
      metrics: null,
      bins: { width: [], mass: [], count: bins, binning, view },
      perOption: [],
      histogram: [],
      riskCoverage: [],
      aurc: null,
    };
  }
  const data = libraryData(d);
  const top = topView(d);
  const { metrics, report, resamples } = itemMetrics(d, {
    bins,
    resamples: opts.resamples,
    seed,
    interval,
    ci: opts.ci ?? "auto",
  });
  const binOpts = { bins, interval };
  const diagram =
    view === "top"
      ? { width: report.reliability.width.map(toBin), mass: report.reliability.mass.map(toBin) }
      : (() => {
          const pooled = pooledClasswise(data);
          return {
            width: binsOf(pooled, { ...binOpts, binning: "width" }),
            mass: binsOf(pooled, { ...binOpts, binning: "mass" }),
          };
        })();
  const perBins = classwiseReliability(data, { bins, binning, interval });
  const scores = d.multi
    ? multiLabelScores(data as MultiLabel).labels
    : optionScores(data as Labelled).options;
  const perOption: OptionReport[] = d.columns.map((option, j) => ({
    option,
    bins: perBins[j].map(toBin),
    precision: scores[j].precision,
    recall: scores[j].recall,
    f1: scores[j].f1,
    support: scores[j].support,
    predicted: scores[j].predicted,
  }));
  const sm = smoothReliability(top, { points: 101, sigma: report.smoothEce.sigma });
  const rc = riskCoverageCurve(top, u.escalated);
  const out: ItemReport = {
    ...base,
    resamples,
    metrics,
    bins: { ...diagram, count: bins, binning, view },
    perOption,
    histogram: confidenceHistogram(view === "top" ? top : pooledClasswise(data)),
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
