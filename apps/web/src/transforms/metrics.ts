/** Metric cards: which metrics an item shows, in what unit, and which direction is better. */

import type { Consistency, ItemSpec, MaybeCI, Metrics } from "@decision-workbench/api/shapes";
import { formatValue, type Unit } from "./format";

/** One metric card. */
export interface MetricCard {
  key: keyof Metrics;
  label: string;
  ci: MaybeCI;
  unit: Unit;
  better: "higher" | "lower";
  /** One sentence for the tooltip and the screen reader. */
  help: string;
  /** How the interval was obtained (the report's `intervals`), when the report says. */
  method?: string;
  /** A bias-corrected estimate's plain value, in words ("bias-corrected; 1.8% as binned"). */
  note?: string;
}

/** The bins of a report's binned metrics. */
export type Binning = "width" | "mass";

interface Spec {
  key: keyof Metrics;
  /** The card's label; `item` names the item so its figures are not read as the run's (all items pooled). */
  label: (bins: number, item?: string) => string;
  unit: Unit;
  better: "higher" | "lower";
  help: string;
  kinds?: ItemSpec["kind"][];
}

const SPECS: Spec[] = [
  {
    key: "accuracy",
    label: (_b, item) => (item ? `Accuracy, ${item}` : "Accuracy"),
    unit: "percent",
    better: "higher",
    help: "Share of answers equal to the gold label.",
  },
  {
    key: "ece",
    label: (b) => `ECE (equal-width, ${b} bins)`,
    unit: "percent",
    better: "lower",
    help: "Expected calibration error: mean gap between confidence and accuracy over equal-width bins.",
  },
  {
    key: "eceMass",
    label: (b) => `ECE (equal-mass, ${b} bins)`,
    unit: "percent",
    better: "lower",
    help: "Expected calibration error over bins holding equal numbers of answers (adaptive binning).",
  },
  {
    key: "mce",
    label: (b) => `MCE (equal-width, ${b} bins)`,
    unit: "percent",
    better: "lower",
    help: "Largest gap between confidence and accuracy over non-empty equal-width bins.",
  },
  {
    key: "mceMass",
    label: (b) => `MCE (equal-mass, ${b} bins)`,
    unit: "percent",
    better: "lower",
    help: "Largest gap between confidence and accuracy over bins holding equal numbers of answers.",
  },
  {
    key: "classwiseEce",
    label: () => "Classwise ECE",
    unit: "percent",
    better: "lower",
    help: "Mean one-vs-rest ECE over the options.",
  },
  {
    key: "smoothEce",
    label: () => "Smooth ECE",
    unit: "percent",
    better: "lower",
    help: "Calibration error of the kernel-smoothed reliability curve (no bins).",
  },
  {
    key: "debiasedL2",
    label: () => "Debiased L2 CE",
    unit: "number",
    better: "lower",
    help: "Debiased squared calibration error (Kumar et al. 2019).",
  },
  {
    key: "brier",
    label: () => "Brier score",
    unit: "number",
    better: "lower",
    help: "Mean squared error of the probabilities (a proper score).",
  },
  {
    key: "nll",
    label: () => "NLL",
    unit: "number",
    better: "lower",
    help: "Negative log-likelihood of the gold label (a proper score).",
  },
  {
    key: "rps",
    label: () => "RPS",
    unit: "number",
    better: "lower",
    help: "Ranked probability score: Brier over cumulative levels of an ordered scale.",
    kinds: ["score"],
  },
  {
    key: "offByOne",
    label: () => "Off-by-one accuracy",
    unit: "percent",
    better: "higher",
    help: "Share of answers at most one level away from the gold level.",
    kinds: ["score"],
  },
  {
    key: "microF1",
    label: () => "Micro F1",
    unit: "percent",
    better: "higher",
    help: "F1 over every label decision pooled.",
    kinds: ["multi"],
  },
  {
    key: "macroF1",
    label: () => "Macro F1",
    unit: "percent",
    better: "higher",
    help: "Mean of the per-label F1 scores.",
    kinds: ["multi"],
  },
];

/** The MCE of the other binning: the one a report with this binning does not show. */
const HIDDEN_MCE: Record<Binning, keyof Metrics> = { width: "mceMass", mass: "mce" };

/**
 * The cards an item's report has data for, in reading order; `bins` names the bin count in ECE and MCE labels, `item`
 * the item in the accuracy label (the run header's accuracy pools every item). MCE follows `binning`: one card, over
 * the bins the reliability diagram shows. `methods` (the report's `intervals`) names each interval's method.
 */
export function metricCards(
  metrics: Metrics | null,
  kind: ItemSpec["kind"],
  bins: number,
  item?: string,
  binning: Binning = "width",
  methods?: Partial<Record<keyof Metrics, string>> | null,
  plain?: Partial<Record<keyof Metrics, number>> | null,
): MetricCard[] {
  const out: MetricCard[] = [];
  if (!metrics) return out;
  for (const s of SPECS) {
    const ci = metrics[s.key];
    if (!ci) continue;
    if (s.kinds && !s.kinds.includes(kind)) continue;
    if (s.key === HIDDEN_MCE[binning]) continue;
    const card: MetricCard = {
      key: s.key,
      label: s.label(bins, item),
      ci,
      unit: s.unit,
      better: s.better,
      help: s.help,
    };
    const method = methods?.[s.key];
    if (method) card.method = method;
    const p = plain?.[s.key];
    // only where the shown point is not the plain value (the debiased L2 error is its own plain value)
    if (p !== undefined && Math.abs(p - ci[0]) > 1e-12)
      card.note = `bias-corrected; ${formatValue(p, s.unit)} plain`;
    out.push(card);
  }
  return out;
}

/**
 * Which interval method each metric used, grouped, in words: "Accuracy, Brier, NLL: bootstrap percentile …;
 * ECE (equal-width), …: basic bootstrap …". "none" when no metric has an interval.
 */
export function intervalSummary(methods: Partial<Record<keyof Metrics, string>> | null | undefined): string {
  const groups = new Map<string, string[]>();
  for (const s of SPECS) {
    const method = methods?.[s.key];
    if (!method) continue;
    const label = s.key === "brier" ? "Brier" : s.label(15).replace(/, 15 bins\)/, ")");
    groups.set(method, [...(groups.get(method) ?? []), label]);
  }
  if (groups.size === 0) return "none";
  return [...groups].map(([method, labels]) => `${labels.join(", ")}: ${method}`).join("; ");
}

/**
 * A p-value for people: "p < 0.001", else two significant digits, more when rounding would carry it across 0.05
 * (0.0499 reads "p = 0.0499", never "p = 0.050" next to "evidence of miscalibration").
 */
export function pValueText(p: number): string {
  if (p < 0.001) return "p < 0.001";
  let digits = 2;
  while (digits < 6 && p < 0.05 !== Number(p.toPrecision(digits)) < 0.05) digits++;
  return `p = ${Number(p.toPrecision(digits))}`;
}

/** The consistency test in words: the verdict, the p-value and how it was computed. */
export function consistencyVerdict(c: Consistency): {
  verdict: "consistent" | "miscalibrated";
  text: string;
  how: string;
} {
  const p = pValueText(c.pValue);
  const how = `consistency resampling, ${c.resamples.toLocaleString("en-US")} draws (Bröcker & Smith 2007)`;
  return c.pValue < 0.05
    ? { verdict: "miscalibrated", text: `Evidence of miscalibration: ${p}`, how }
    : { verdict: "consistent", text: `Consistent with perfect calibration: ${p}`, how };
}

/** The unit and direction of a metric by name (for comparison tables); unknown names are plain numbers. */
export function metricInfo(name: string): { label: string; unit: Unit; better: "higher" | "lower" } {
  const s = SPECS.find((x) => x.key === name);
  if (!s) return { label: name, unit: "number", better: "lower" };
  return {
    label: s.label(15).replace(/ \(equal-(width|mass), 15 bins\)/, (_m, w) => ` (equal-${w})`),
    unit: s.unit,
    better: s.better,
  };
}
