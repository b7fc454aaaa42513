import { compareRuns, type HeadlineMetrics, type RunComparison } from "@decision-workbench/calibration";
import type { Comparison } from "../shapes/calibrations.js";
import type { CI } from "../shapes/common.js";
import { STATUS_NAMES } from "../storage/item-values.js";
import { binsOf } from "./bins.js";
import { type ItemData, selectUsable } from "./matrix.js";
import { autoResamples } from "./metrics.js";
import { libraryData, topView } from "./views.js";

/** One run to compare: its id, requested model, the models that answered, and the item's typed rows. */
export interface CompareRun {
  id: string;
  model: string;
  servedBy: string[];
  data: ItemData;
}

/** The compared calibration errors (their estimates come cut to [0, 1] by the library). */
const ERRORS = new Set<string>(["ece", "eceMass", "mce", "mceMass"]);

/**
 * A calibration error's change between two runs, coherent with the values shown: the point is the difference of the
 * two bias-corrected values, the interval the difference of their bias-aware intervals [low_a - high_b, high_a -
 * low_b]. It covers whenever both runs' intervals cover (their coverage is 97-100 % in the library's simulations),
 * so it is conservative and not paired: a paired percentile interval of the plain difference covered 0-11 % and a
 * paired basic one 45-76 % in 200 seeded trials at n = 1000 (one over-confident run against a calibrated one), since
 * the plain ECE's upward bias differs between the runs. The means (accuracy, Brier, NLL) keep the paired percentile.
 */
function errorDelta(a: CI, b: CI): CI {
  return [a[0] - b[0], a[1] - b[2], a[2] - b[1]];
}

/** How the compared deltas' intervals were obtained, in words with their references. */
const DELTA_METHODS = {
  means:
    "accuracy, Brier, NLL: plain difference with the percentile interval of the paired bootstrap [Efron & Tibshirani 1993]",
  errors:
    "ECE and MCE: difference of the bias-corrected values, interval from the two runs' bias-aware intervals (not paired; covers whenever both do)",
};

/** One compared metric of run a against run b: a's value and the change a - b, as compareItem shows them. */
export function comparedMetric(
  c: RunComparison,
  name: (typeof COMPARED_METRICS)[number],
): { value: CI; delta: CI } {
  if (!ERRORS.has(name)) return { value: c.a[name], delta: c.delta[name] };
  const a = c.a[name];
  // the same error on every paired resample (the same predictions): no change, exactly
  const [, low, high] = c.delta[name];
  if (Math.abs(low) <= 1e-12 && Math.abs(high) <= 1e-12) return { value: a, delta: [0, 0, 0] };
  return { value: a, delta: errorDelta(a, c.b[name]) };
}

/** The headline metrics compared, in display order. */
export const COMPARED_METRICS = ["accuracy", "ece", "eceMass", "mce", "mceMass", "brier", "nll"] as const;

function sameAnswer(a: string | string[] | null, b: string | string[] | null): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    const sa = [...a].sort();
    const sb = [...b].sort();
    return sa.every((x, i) => x === sb[i]);
  }
  return a === b;
}

/**
 * For each row of `base`, the row of the same example in `d`, or -1. Runs of one dataset usually list their
 * examples in the same order; then no lookup table is built.
 */
function rowsOfBase(base: ItemData, d: ItemData): Int32Array {
  const ids = base.exampleIds.list();
  const theirs = d.exampleIds.list();
  const out = new Int32Array(ids.length);
  let same = theirs.length === ids.length;
  for (let i = 0; i < ids.length && same; i++) {
    out[i] = i;
    same = theirs[i] === ids[i];
  }
  if (same) return out;
  const rowOfId = new Map<string, number>();
  theirs.forEach((id, row) => {
    rowOfId.set(id, row);
  });
  for (let i = 0; i < ids.length; i++) out[i] = rowOfId.get(ids[i]) ?? -1;
  return out;
}

/** For each row of d, its usable index, or -1 when the row is not usable. */
function usableIndexOfRow(d: ItemData): Int32Array {
  const out = new Int32Array(d.exampleIds.length).fill(-1);
  for (let u = 0; u < d.m; u++) out[d.rowOf[u]] = u;
  return out;
}

function setKey(xs: string[]): string {
  return [...new Set(xs)].sort().join("\u0000");
}

/**
 * Compares runs of the same dataset on one item. Metrics: each run's headline metrics with CIs and the paired
 * bootstrap difference run - first run on the examples usable in all runs (the calibration library's compareRuns,
 * same resamples for both). Flipped: examples present in every run whose status or answer differs.
 */
export function compareItem(
  runs: CompareRun[],
  opts: { split: string; bins?: number; resamples?: number; seed?: number; offset?: number; limit?: number },
): Comparison {
  if (runs.length < 2) throw new RangeError(`compare needs at least two runs, got ${runs.length}`);
  const bins = opts.bins ?? 15;
  const seed = opts.seed ?? 0;
  const base = runs[0].data;
  const at = runs.map((r) => rowsOfBase(base, r.data));
  // examples usable in every run, in the first run's order: their usable index in each run
  const usableOf = runs.map((r) => usableIndexOfRow(r.data));
  const shared = runs.map(() => [] as number[]);
  for (let u = 0; u < base.m; u++) {
    const i = base.rowOf[u];
    let all = true;
    for (let j = 1; j < runs.length && all; j++) all = at[j][i] >= 0 && usableOf[j][at[j][i]] >= 0;
    if (!all) continue;
    for (let j = 0; j < runs.length; j++) shared[j].push(usableOf[j][at[j][i]]);
  }
  const aligned = runs.map((r, j) => selectUsable(r.data, shared[j], (u) => r.data.rowOf[u]));
  const n = shared[0].length;
  const resamples = opts.resamples ?? autoResamples(n);
  const metrics: Comparison["metrics"] = COMPARED_METRICS.map((name) => ({ name, values: [], deltas: [] }));
  if (n > 0) {
    const baseData = libraryData(aligned[0]);
    let baseValues: HeadlineMetrics | null = null;
    for (let i = 1; i < runs.length; i++) {
      const c = compareRuns(libraryData(aligned[i]), baseData, { bins, resamples, seed });
      if (baseValues === null) {
        baseValues = c.b;
        COMPARED_METRICS.forEach((name, j) => {
          metrics[j].values.push(c.b[name]);
        });
      }
      COMPARED_METRICS.forEach((name, j) => {
        const { value, delta } = comparedMetric(c, name);
        metrics[j].values.push(value);
        metrics[j].deltas.push({ run: runs[i].id, vs: runs[0].id, delta });
      });
    }
  }
  const overlay = aligned.map((d) => binsOf(topView(d), { bins, binning: "width", interval: "wilson" }));
  const flipped = flippedAnswers(runs, { offset: opts.offset, limit: opts.limit });
  const served = runs.map((r) => setKey(r.servedBy.length > 0 ? r.servedBy : [r.model]));
  return {
    item: base.spec.name,
    split: opts.split,
    runs: runs.map((r) => ({ id: r.id, model: r.model, servedBy: r.servedBy })),
    servedModelDiffers: served.some((s) => s !== served[0]),
    n,
    resamples,
    metrics,
    methods: {
      values:
        "each run's estimates as its report gives them (calibration errors: bias-corrected, bias-bounded basic bootstrap; accuracy, Brier, NLL: percentile)",
      deltas: `${DELTA_METHODS.means}; ${DELTA_METHODS.errors}`,
    },
    bins: overlay,
    flipped,
  };
}

/**
 * The examples present in every run whose status or answer differs, in the first run's order: their count, how many
 * examples were compared, and the page from `offset` (at most `limit` rows, 200 when not given). Each row gives per
 * run its answer, status and confidence (null when the run gave none); with `positions`, also the example's index
 * among the run's answers of this item and split in run order (the run's items list with filter `all`), so a link
 * can open the page of that list that holds it. (Positions depend on each run's own order, so compareItem, which
 * pairs runs whatever their order, leaves them out.)
 */
export function flippedAnswers(
  runs: CompareRun[],
  opts: { offset?: number; limit?: number; positions?: boolean } = {},
): Comparison["flipped"] {
  const base = runs[0].data;
  const at = runs.map((r) => rowsOfBase(base, r.data));
  const offset = opts.offset ?? 0;
  const limit = opts.limit ?? 200;
  const rows: Comparison["flipped"]["rows"] = [];
  let total = 0;
  let compared = 0;
  for (let i = 0; i < base.exampleIds.length; i++) {
    let present = true;
    let flipped = false;
    for (let j = 1; j < runs.length && present; j++) {
      const row = at[j][i];
      if (row < 0) present = false;
      else if (
        runs[j].data.status[row] !== base.status[i] ||
        !sameAnswer(runs[j].data.answers[row], base.answers[i])
      )
        flipped = true;
    }
    if (!present) continue;
    compared++;
    if (!flipped) continue;
    if (total >= offset && rows.length < limit) {
      const positions = runs.map((_, j) => at[j][i]);
      rows.push({
        exampleId: base.exampleIds.at(i),
        gold: base.golds[i],
        answers: runs.map((r, j) => r.data.answers[positions[j]]),
        statuses: runs.map((r, j) => STATUS_NAMES[r.data.status[positions[j]]]),
        confidences: runs.map((r, j) => {
          const c = r.data.confidence[positions[j]];
          return Number.isFinite(c) ? c : null;
        }),
        ...(opts.positions ? { positions } : {}),
      });
    }
    total++;
  }
  return { total, compared, offset, rows };
}
