import { bootstrapOptions } from "../bootstrap/bootstrap.js";
import { bootstrapRuns, ENGINE_METRICS, type RunItems } from "../bootstrap/engine.js";
import { percentileInterval } from "../bootstrap/percentile.js";
import { NothingLearnedError } from "../errors.js";
import { checkBins, checkLabelled, checkMultiLabel, isMultiLabel } from "../input.js";
import { runItems } from "../report/items.js";
import { pointMetrics } from "../report/points.js";
import type { HeadlineMetrics } from "../report/report.js";
import type { BootstrapOptions, Labelled, MultiLabel, ProbMatrix } from "../types.js";
import { argmaxUnchecked } from "../views.js";
import { crossFit } from "./cross-fit.js";
import { calibrator, labelCalibrator, METHODS, type Method } from "./registry.js";
import type { Calibrator } from "./types.js";

/** Options of chooseCalibrator. */
export interface ChooseOptions extends BootstrapOptions {
  /** Held-out split to score on; without it, k-fold cross-fitting on the fit split. */
  eval?: Labelled | MultiLabel;
  /** Methods to try; identity is always tried. All methods by default ("vector" only for multiclass). */
  candidates?: Method[];
  /** Held-out score that picks the winner: "nll" (default) or "brier". */
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
  /** Params fitted on the whole fit split (null when the fit failed). */
  params: unknown;
  error: string | null;
  warnings: string[];
  /** Held-out metrics with CIs (null when the fit failed). */
  heldOut: HeadlineMetrics | null;
  /** Paired differences candidate - identity on the held-out items. */
  delta: HeadlineMetrics | null;
  /** Held-out predicted Unknown rate, when unknownOption is given. */
  unknownRate: number | null;
}

/** Every candidate scored on held-out data, and the winner. */
export interface ChooseResult {
  criterion: "nll" | "brier";
  heldOut: "eval" | "cross-fit";
  winner: Method;
  params: unknown;
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

/**
 * Fits every candidate calibrator on the fit split, scores it on held-out data (the eval split, or k-fold
 * cross-fitting), reports each with bootstrap CIs and paired differences against identity, and picks the lowest
 * held-out NLL or Brier [Guo et al. 2017; Kull et al. 2019].
 */
export function chooseCalibrator(fit: Labelled | MultiLabel, opts: ChooseOptions = {}): ChooseResult {
  const multi = isMultiLabel(fit);
  const n = multi
    ? checkMultiLabel(fit, "chooseCalibrator")
    : checkLabelled(fit as Labelled, "chooseCalibrator");
  if (n === 0) throw new NothingLearnedError();
  const o = bootstrapOptions(opts, "chooseCalibrator");
  const bins = checkBins(opts.bins ?? 15, "chooseCalibrator");
  const criterion = opts.criterion ?? "nll";
  if (criterion !== "nll" && criterion !== "brier") {
    throw new RangeError(
      `chooseCalibrator: criterion must be "nll" or "brier", got ${JSON.stringify(criterion)}`,
    );
  }
  const evalData = opts.eval;
  if (evalData) {
    if (isMultiLabel(evalData) !== multi || evalData.k !== fit.k) {
      throw new RangeError(
        "chooseCalibrator: the eval split must be the same kind of question with the same options",
      );
    }
    const m = multi
      ? checkMultiLabel(evalData as MultiLabel, "chooseCalibrator")
      : checkLabelled(evalData as Labelled, "chooseCalibrator");
    if (m === 0) throw new RangeError("chooseCalibrator: the eval split has no usable items to score on");
  }
  const wanted = opts.candidates ?? METHODS.filter((m) => !(multi && m === "vector"));
  for (const m of wanted) {
    if (!METHODS.includes(m))
      throw new RangeError(
        `chooseCalibrator: unknown method ${JSON.stringify(m)}; expected one of ${METHODS.join(", ")}`,
      );
  }
  const methods: Method[] = ["identity", ...wanted.filter((m) => m !== "identity")];
  const target = evalData ?? fit;
  const results: CandidateResult[] = [];
  const items: RunItems[] = [];
  const index: number[] = [];
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
    };
    results.push(res);
    try {
      const params = cal.fit(fit);
      res.params = params;
      res.warnings = collectWarnings(params);
      const held = evalData
        ? cal.apply(params, evalData)
        : crossFit(cal, fit, { folds: opts.folds ?? 5, seed: o.seed }).probs;
      const heldData = { ...target, probs: held } as Labelled | MultiLabel;
      items.push(runItems(heldData, "chooseCalibrator"));
      index.push(results.length - 1);
      res.unknownRate = multi ? null : unknownRate(heldData, opts.unknownOption);
    } catch (err) {
      res.error = err instanceof Error ? err.message : String(err);
    }
  }
  if (items.length === 0) throw new NothingLearnedError();
  const reps = bootstrapRuns(items, bins, o.resamples, o.seed);
  const pointOf = (it: RunItems) => pointMetrics(it, bins);
  const base = index[0] === 0 ? 0 : -1;
  const basePoint = base === 0 ? pointOf(items[0]) : null;
  for (let r = 0; r < items.length; r++) {
    const res = results[index[r]];
    const point = pointOf(items[r]);
    const held = {} as HeadlineMetrics;
    const delta = {} as HeadlineMetrics;
    for (const m of ENGINE_METRICS) {
      held[m] = [point[m], ...percentileInterval(reps[r][m], o.level)];
      if (basePoint) {
        const diff = reps[r][m].map((v, i) => v - reps[0][m][i]);
        delta[m] = [point[m] - basePoint[m], ...percentileInterval(diff, o.level)];
      }
    }
    res.heldOut = held;
    res.delta = basePoint ? delta : null;
  }
  let best = -1;
  for (let i = 0; i < results.length; i++) {
    const h = results[i].heldOut;
    if (h && (best < 0 || h[criterion][0] < results[best].heldOut![criterion][0])) best = i;
  }
  return {
    criterion,
    heldOut: evalData ? "eval" : "cross-fit",
    winner: results[best].method,
    params: results[best].params,
    candidates: results,
  };
}

function collectWarnings(params: unknown): string[] {
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
