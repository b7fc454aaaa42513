import { biasBounded, percentileEstimate } from "../bootstrap/basic.js";
import { bootstrapOptions } from "../bootstrap/bootstrap.js";
import { bootstrapRuns, ENGINE_METRICS, type RunItems } from "../bootstrap/engine.js";
import { NothingLearnedError } from "../errors.js";
import { checkBins, checkLabelled, checkMultiLabel, isMultiLabel } from "../input.js";
import { topBounds } from "../report/bias-bound.js";
import { runItems } from "../report/items.js";
import { pointMetrics } from "../report/points.js";
import type { HeadlineMetrics } from "../report/report.js";
import { argsortUnit } from "../sort.js";
import type { BootstrapOptions, Estimate, Labelled, MultiLabel, ProbMatrix } from "../types.js";
import { argmaxUnchecked } from "../views.js";
import { pairedImprovement } from "./bca.js";
import { crossFit } from "./cross-fit.js";
import { diagnose, minItems } from "./diagnostics.js";
import { calibrator, labelCalibrator, METHODS, type Method } from "./registry.js";
import type { Calibrator } from "./types.js";

/**
 * The order in which `auto` tries methods, simplest first: a method replaces the one before it that is kept only when
 * its paired held-out improvement has a 95 % interval wholly above 0.
 */
export const SIMPLICITY_ORDER: readonly Method[] = [
  "identity",
  "temperature",
  "platt",
  "vector",
  "beta",
  "histogram",
  "isotonic",
];

/** Options of chooseCalibrator. */
export interface ChooseOptions extends BootstrapOptions {
  /**
   * A separate selection split (never the evaluation split) to score the candidates on, fitted on `fit`; without it,
   * k-fold cross-fitting inside `fit` on the same folds for every candidate, so the comparison is paired.
   */
  selection?: Labelled | MultiLabel;
  /** Methods to try; identity is always tried. All methods by default ("vector" only for multiclass). */
  candidates?: Method[];
  /** Held-out score compared: "nll" (default) or "brier". */
  criterion?: "nll" | "brier";
  /** Folds of the cross-fitting (5). */
  folds?: number;
  /** Bins of the reported ECEs (15). */
  bins?: number;
  /** Index of the `not stated` option (multiclass), to report the predicted Unknown rate before and after. */
  unknownOption?: number;
}

/** One candidate's held-out results. */
export interface CandidateResult {
  method: Method;
  /** Params fitted on the whole fit split (null when the fit failed or the method was not tried). */
  params: unknown;
  error: string | null;
  warnings: string[];
  /**
   * Held-out metrics (cross-fit or selection split), as calibrationReport gives them: accuracy, NLL and Brier with
   * percentile CIs, ECE and MCE (both binnings) bias-corrected with their bias-bounded interval; every point inside its
   * interval (null when the fit failed).
   */
  heldOut: HeadlineMetrics | null;
  /** Paired differences candidate - identity on the held-out items, percentile CIs widened to hold the difference. */
  delta: HeadlineMetrics | null;
  /** Held-out predicted Unknown rate, when unknownOption is given. */
  unknownRate: number | null;
  /**
   * Held-out criterion improvement over `against` (against minus candidate, mean over items: positive = better), with
   * its paired bootstrap BCa interval; null for identity and for candidates that were not scored.
   */
  improvement: Estimate | null;
  /** The incumbent this candidate was tested against (null for identity and unscored candidates). */
  against: Method | null;
  /** Whether the candidate replaced the incumbent (identity: accepted as the starting incumbent unless replaced). */
  accepted: boolean;
}

/** How the winner came out of the comparison. */
export type ChooseVerdict = "improvement" | "indistinguishable" | "identity" | "degenerate";

/** Every candidate scored on held-out fit data, and the winner by the simplicity rule. */
export interface ChooseResult {
  criterion: "nll" | "brier";
  heldOut: "cross-fit" | "selection";
  /** Folds of the cross-fitting; null when scored on a selection split. */
  folds: number | null;
  winner: Method;
  /** The winner's params, fitted on the whole fit split. */
  params: unknown;
  verdict: ChooseVerdict;
  /** The verdict in words, with the improvement and its interval. */
  note: string;
  /** Degenerate or small fit data, and the winner's fit warnings. */
  warnings: string[];
  candidates: CandidateResult[];
}

function unknownRate(m: ProbMatrix, option: number | undefined): number | null {
  if (option === undefined) return null;
  const n = m.probs.length / m.k;
  const pred = argmaxUnchecked(m.probs, n, m.k);
  let c = 0;
  for (let i = 0; i < n; i++) if (pred[i] === option) c++;
  return c / n;
}

const fmt = (x: number) => (Math.abs(x) >= 1e-4 || x === 0 ? x.toFixed(4) : x.toExponential(1));

function says(e: Estimate, criterion: string, level: number, where: string): string {
  return `${criterion.toUpperCase()} improvement ${fmt(e[0])} (${Math.round(level * 100)} % CI ${fmt(e[1])} to ${fmt(e[2])}, paired bootstrap BCa, ${where})`;
}

function checkData(x: Labelled | MultiLabel, multi: boolean, fn: string, what: string): number {
  return multi
    ? checkMultiLabel(x as MultiLabel, `${fn} (${what})`)
    : checkLabelled(x as Labelled, `${fn} (${what})`);
}

/**
 * Compares candidate calibrators on held-out FIT data only — k-fold cross-fitting inside the fit split (the same
 * folds for every candidate) or a separate selection split — and picks by the simplicity rule: walking up
 * SIMPLICITY_ORDER from identity, a candidate replaces the incumbent only when its paired held-out improvement in the
 * criterion (incumbent minus candidate, mean over items) has a 95 % paired bootstrap BCa interval wholly above 0. Degenerate fit data (all correct or all wrong, one class, separable) keep identity with verdict "degenerate".
 * The winner's params are fitted on the whole fit split. It never sees evaluation data [Guo et al. 2017; Kull et al.
 * 2019; Efron & Tibshirani 1993 for the bootstrap].
 */
export function chooseCalibrator(fit: Labelled | MultiLabel, opts: ChooseOptions = {}): ChooseResult {
  if ((opts as { eval?: unknown }).eval !== undefined) {
    throw new RangeError(
      "chooseCalibrator: the eval option is removed, since selection must never read the split it reports on; pass a separate selection split as `selection`, or nothing to cross-fit inside the fit split",
    );
  }
  const multi = isMultiLabel(fit);
  const n = checkData(fit, multi, "chooseCalibrator", "fit split");
  if (n === 0) throw new NothingLearnedError();
  const o = bootstrapOptions(opts, "chooseCalibrator");
  const bins = checkBins(opts.bins ?? 15, "chooseCalibrator");
  const criterion = opts.criterion ?? "nll";
  if (criterion !== "nll" && criterion !== "brier") {
    throw new RangeError(
      `chooseCalibrator: criterion must be "nll" or "brier", got ${JSON.stringify(criterion)}`,
    );
  }
  const selection = opts.selection;
  if (selection) {
    if (isMultiLabel(selection) !== multi || selection.k !== fit.k) {
      throw new RangeError(
        "chooseCalibrator: the selection split must be the same kind of question with the same options as the fit split",
      );
    }
    if (selection === fit || selection.probs === fit.probs) {
      throw new RangeError(
        "chooseCalibrator: the selection split is the fit split; pass a separate split, or no selection to cross-fit",
      );
    }
    if (checkData(selection, multi, "chooseCalibrator", "selection split") === 0)
      throw new RangeError("chooseCalibrator: the selection split has no usable items to score on");
  }
  const folds = opts.folds ?? 5;
  if (!selection && (!Number.isInteger(folds) || folds < 2)) {
    throw new RangeError(`chooseCalibrator: folds must be an integer >= 2 (5 by default), got ${folds}`);
  }
  const wanted = opts.candidates ?? METHODS.filter((m) => !(multi && m === "vector"));
  for (const m of wanted) {
    if (!METHODS.includes(m))
      throw new RangeError(
        `chooseCalibrator: unknown method ${JSON.stringify(m)}; expected one of ${METHODS.join(", ")}`,
      );
    if (multi && m === "vector")
      throw new RangeError(
        'chooseCalibrator: "vector" scaling has no per-label form for multi-label questions; use "platt"',
      );
  }
  const methods = SIMPLICITY_ORDER.filter((m) => m === "identity" || wanted.includes(m));
  const diagnosis = diagnose(fit);
  const warnings = [...diagnosis.degenerate, ...diagnosis.small];
  const target = selection ?? fit;
  const results: CandidateResult[] = [];
  const items: RunItems[] = [];
  const index: number[] = [];
  const canCrossFit = selection !== undefined || n >= folds;
  for (const method of methods) {
    const cal = (multi ? labelCalibrator(method) : calibrator(method)) as Calibrator<
      Labelled | MultiLabel,
      unknown,
      ProbMatrix
    >;
    const res: CandidateResult = {
      method,
      params: null,
      error: null,
      warnings: [],
      heldOut: null,
      delta: null,
      unknownRate: null,
      improvement: null,
      against: null,
      accepted: method === "identity",
    };
    results.push(res);
    const need = minItems(method, fit.k);
    if (n < need) {
      res.error = `not tried: ${method} needs at least ${need} fit items, the fit split has ${n}`;
      continue;
    }
    if (!canCrossFit) {
      if (method !== "identity") {
        res.error = `not tried: ${n} fit items cannot be split into ${folds} folds`;
        continue;
      }
    }
    try {
      const params = cal.fit(fit);
      res.params = params;
      res.warnings = collectWarnings(params);
      const held = selection
        ? cal.apply(params, selection)
        : method === "identity"
          ? Float64Array.from(fit.probs)
          : crossFit(cal, fit, { folds, seed: o.seed }).probs;
      const heldData = { ...target, probs: held } as Labelled | MultiLabel;
      items.push(runItems(heldData, "chooseCalibrator"));
      index.push(results.length - 1);
      res.unknownRate = multi ? null : unknownRate(heldData, opts.unknownOption);
    } catch (err) {
      if (method === "identity") throw err;
      res.error = err instanceof Error ? err.message : String(err);
    }
  }
  if (items.length === 0) throw new NothingLearnedError();
  const reps = bootstrapRuns(items, bins, o.resamples, o.seed);
  const points = items.map((it) => pointMetrics(it, bins));
  for (let r = 0; r < items.length; r++) {
    const res = results[index[r]];
    const held = {} as HeadlineMetrics;
    const delta = {} as HeadlineMetrics;
    const bounds = binnedBounds(items[r], bins);
    for (const m of ENGINE_METRICS) {
      held[m] =
        m === "accuracy" || m === "nll" || m === "brier"
          ? percentileEstimate(points[r][m], reps[r][m], o.level)
          : biasBounded(points[r][m], reps[r][m], o.level, bounds[m]);
      const diff = reps[r][m].map((v, i) => v - reps[0][m][i]);
      delta[m] = percentileEstimate(points[r][m] - points[0][m], diff, o.level);
    }
    res.heldOut = held;
    res.delta = delta;
  }
  const where = selection ? "selection split" : `${folds}-fold cross-fit on the fit split`;
  const degenerate = diagnosis.degenerate.length > 0;
  // the simplicity rule: walk up the order, replacing the incumbent only on a significant improvement
  let incumbent = 0; // position in items / index
  for (let r = 1; r < items.length; r++) {
    const res = results[index[r]];
    const inc = results[index[incumbent]];
    res.against = inc.method;
    res.improvement = pairedImprovement(
      items[incumbent][criterion],
      items[r][criterion],
      reps[incumbent][criterion],
      reps[r][criterion],
      o.level,
    );
    if (!degenerate && res.improvement[1] > 0) {
      inc.accepted = false;
      res.accepted = true;
      incumbent = r;
    }
  }
  const winnerRes = results[index[degenerate ? 0 : incumbent]];
  let bestByPoint = 0;
  for (let r = 1; r < items.length; r++)
    if (points[r][criterion] < points[bestByPoint][criterion]) bestByPoint = r;
  let verdict: ChooseVerdict;
  let note: string;
  if (degenerate) {
    verdict = "degenerate";
    for (const r of results) r.accepted = r.method === "identity";
    note = `identity is kept: the fit data are degenerate (${diagnosis.degenerate.join("; ")}), so a fitted calibrator would push confidences towards 0 or 1 and its first mistake would cost a huge log-loss`;
  } else if (bestByPoint !== incumbent) {
    verdict = "indistinguishable";
    const best = results[index[bestByPoint]];
    const e = pairedImprovement(
      items[incumbent][criterion],
      items[bestByPoint][criterion],
      reps[incumbent][criterion],
      reps[bestByPoint][criterion],
      o.level,
    );
    const simpler = bestByPoint > incumbent ? "the simpler " : "";
    note = `${best.method} has the lowest held-out ${criterion.toUpperCase()} but is indistinguishable from ${winnerRes.method}: ${says(e, criterion, o.level, where)}; ${simpler}${winnerRes.method} is kept`;
  } else if (winnerRes.method !== "identity") {
    verdict = "improvement";
    note = `${winnerRes.method} improves on ${winnerRes.against}: ${says(winnerRes.improvement!, criterion, o.level, where)}; ${winnerRes.method} is chosen`;
  } else {
    verdict = "identity";
    note = `no candidate has a lower held-out ${criterion.toUpperCase()} than identity (${where}); identity is kept`;
  }
  for (const w of winnerRes.warnings) if (!warnings.includes(w)) warnings.push(w);
  return {
    criterion,
    heldOut: selection ? "selection" : "cross-fit",
    folds: selection ? null : folds,
    winner: winnerRes.method,
    params: winnerRes.params,
    verdict,
    note,
    warnings,
    candidates: results,
  };
}

/**
 * The bias bounds of a run's binned errors (ECE and MCE, both binnings), as calibrationReport computes them: the
 * candidates' held-out ECEs get the report's bias-bounded interval, whose point lies inside it. Internal.
 */
export function binnedBounds(
  items: RunItems,
  bins: number,
): Record<"ece" | "eceMass" | "mce" | "mceMass", number> {
  const order = argsortUnit(items.conf);
  const n = order.length;
  const conf = new Float64Array(n);
  const res = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    conf[t] = items.conf[order[t]];
    res[t] = items.correct[order[t]] - conf[t];
  }
  const width = topBounds(conf, res, bins, "width");
  const mass = topBounds(conf, res, bins, "mass");
  return { ece: width.ece, eceMass: mass.ece, mce: width.mce, mceMass: mass.mce };
}

/** Every distinct warning string found in params (nested: per class or per label). Internal. */
export function collectWarnings(params: unknown): string[] {
  const out: string[] = [];
  const visit = (x: unknown) => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (x && typeof x === "object") {
      const w = (x as { warnings?: unknown }).warnings;
      if (Array.isArray(w)) for (const s of w) if (typeof s === "string" && !out.includes(s)) out.push(s);
      for (const v of Object.values(x)) if (v && typeof v === "object") visit(v);
    }
  };
  visit(params);
  return out;
}
