/** The analysis commands: `workbench report`, `workbench fit` and `workbench check` (exit codes, not exceptions). */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CalibrationFile,
  CalibrationFileError,
  METHODS,
  type Method,
  parseCalibrationFile,
} from "@decision-workbench/calibration";
import { AnalysisData, defaultSplit, type LoadedRun } from "../analysis/data.js";
import { itemReport } from "../analysis/report.js";
import { DB_FILE, defaultDataDir } from "../config.js";
import { RunEngine } from "../engine/engine.js";
import { ApiError, badRequest } from "../errors.js";
import { checkLoadedRun, fitRun } from "../routes/analysis/fit-run.js";
import { SecretBox } from "../secrets/box.js";
import { loadSecretKey } from "../secrets/key.js";
import type { Calibration, FitRequest, RunCheck } from "../shapes/calibrations.js";
import type { SplitChoice } from "../shapes/common.js";
import { CONCURRENCY, SPLITS } from "../shapes/limits.js";
import type { ItemReport, Rate } from "../shapes/reports.js";
import type { RunSummary } from "../shapes/runs.js";
import { openStorage, type SqliteStorage } from "../storage/sqlite.js";
import type { Split } from "../storage/types.js";
import { intFlag, parseFlags, REFERENCE_URL, splitListFlag, UsageError } from "./args.js";
import { ProgressPrinter } from "./progress.js";
import { apiKeyFromEnv, splitsToRun } from "./run-source.js";
import { serverFor } from "./server-for.js";

/** What RUN takes in every analysis command. */
const RUN_ARG = "a run id (run_…), or latest for the newest run of the data folder";

/** `workbench report --help`. */
export const REPORT_HELP = `workbench report RUN [flags]

Prints every metric of a stored run with its 95 % interval, per item and split.

  RUN            ${RUN_ARG}
  --split LIST   the splits to report: train, calibration or test, comma-separated (one report per split
                 listed), or all (the run's rows pooled); default test when the run has it, else all
  --item I       one item only
  --bins 15      reliability bins (2 to 100)
  --resamples N  bootstrap resamples (10 to 10000)
  --json         the reports as JSON
  --data-dir D   the data folder (default: WORKBENCH_DATA_DIR or <repo>/.data/workbench)

For example, after the example of workbench run --help:
  workbench report latest --split calibration,test
`;

/** `workbench fit --help`. */
export const FIT_HELP = `workbench fit RUN --out FILE [flags]

Fits a calibrator per item on one split of a stored run, evaluates it once on another, stores the calibration
and writes the calibration file.

  RUN                    ${RUN_ARG}
  --out FILE             the calibration file to write
  --method auto          auto, one method to force, or a comma-separated list of candidates for auto
  --fit-split S          the split to fit on; default calibration (a one-split run: its split)
  --eval-split S         the split to evaluate on, or crossfit (5-fold cross-fitting of the fit split);
                         default test, else crossfit (said on stderr)
  --selection-split S    a third split to compare candidates on (default: cross-fitting inside the fit split)
  --item I               one item only
  --target-risk 0.05     the error allowed on answers given alone (sets the escalation threshold)
  --conservative         choose the threshold on the interval's upper bound
  --select nll|brier     what candidates are compared on
  --resamples N          bootstrap resamples (10 to 10000)
  --data-dir D           the data folder

For example, after the example of workbench run --help (a run of calibration and test):
  workbench fit latest --method auto --out calibration.json
`;

/** `workbench check --help`. */
export const CHECK_HELP = `workbench check --calibration FILE --dataset D --server URL --model M [flags]

Runs the dataset against the server again and checks the run against a calibration file: the same served
model, and calibration within the file's intervals. Exit 0 when it matches, 1 with the reasons when not.

  --calibration FILE   a file written by workbench fit
  --dataset D, --server URL, --model M, --api-key-env VAR   as in workbench run
  --split LIST         the splits to run and check: train, calibration or test, comma-separated (several
                       are checked pooled), or all (every split of the dataset); default the file's
                       evaluation split (its fit split when it was cross-fitted)
  --limit N            at most N examples of each split
  --concurrency 16     requests in flight
  --json               the check as JSON
  --data-dir D         the data folder

For example, after the example of workbench fit --help:
  workbench check --calibration calibration.json --dataset penguins --server ${REFERENCE_URL} --model workbench-latest
`;

/** Where the commands write: replaceable in tests. */
export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

const stdio: Output = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** The run a command names: its id, or the newest run of the data folder for `latest`. */
async function runIdOf(storage: SqliteStorage, given: string): Promise<string> {
  if (given !== "latest") return given;
  const newest = (await storage.listStoredRuns())[0];
  if (!newest) {
    throw badRequest(
      `latest: the data folder has no runs yet; start one with workbench run (workbench run --help shows an example)`,
    );
  }
  return newest.id;
}

/** Refuses splits a run did not run, naming the ones it did. */
function checkRunHas(run: LoadedRun["run"], splits: readonly string[], flag: string): void {
  for (const s of splits) {
    if (!(run.splits as string[]).includes(s)) {
      throw badRequest(
        `${flag} ${s}: run ${run.id} has no ${s} split; it ran ${run.splits.join(", ")}, so use ${flag} ${run.splits.join(",")} or all`,
      );
    }
  }
}

function numberFlag(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(value.trim() !== "" && Number.isFinite(n) && n >= min && n < max)) {
    throw new UsageError(
      `--${name} must be a number in [${min}, ${max}), e.g. 0.05; got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

const fmt = (x: number | null | undefined, digits = 4) =>
  x === null || x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(digits);
const ci = (v: [number, number | null, number | null] | undefined) =>
  v ? `${fmt(v[0])} [${fmt(v[1])}, ${fmt(v[2])}]` : "n/a";

/** Opens the data folder's storage; the caller closes it. */
function open(dataDir: string | undefined): { storage: SqliteStorage; dataDir: string } {
  const dir = dataDir ?? defaultDataDir();
  return { storage: openStorage(join(dir, DB_FILE)), dataDir: dir };
}

async function withRun<T>(
  storage: SqliteStorage,
  id: string,
  f: (data: AnalysisData, loaded: LoadedRun) => Promise<T>,
): Promise<T> {
  const data = new AnalysisData(storage);
  return f(data, await data.run(id));
}

const pctOf = (x: number | null) => (x === null ? "n/a" : `${(x * 100).toFixed(1)}%`);
/** A rate with its count and Wilson interval: "3/4 = 75.0% [30.1%, 95.4%]"; "0/0" when nothing to share. */
const rate = (r: Rate) =>
  r.n === 0 ? "0/0" : `${r.x}/${r.n} = ${pctOf(r.value)} [${pctOf(r.low)}, ${pctOf(r.high)}]`;

/** The consistency test's verdict in words (null when the report has none). */
function consistencyText(c: ItemReport["consistency"]): string | null {
  if (!c) return null;
  let digits = 2;
  while (digits < 6 && c.pValue < 0.05 !== Number(c.pValue.toPrecision(digits)) < 0.05) digits++;
  const p = c.pValue < 0.001 ? "p < 0.001" : `p = ${Number(c.pValue.toPrecision(digits))}`;
  const how = `consistency resampling of the ${c.statistic.toUpperCase()}, ${c.resamples} draws [Brocker & Smith 2007]`;
  return c.pValue < 0.05
    ? `evidence of miscalibration: ${p} (${how})`
    : `consistent with perfect calibration: ${p} (${how}; no evidence of miscalibration)`;
}

/** A report as lines of text. */
function reportText(r: ItemReport): string {
  const c = r.counts;
  const lines = [
    `${r.item.name} (${r.item.kind}: ${r.item.options.join(", ")}${r.item.notStated ? ", not stated" : ""}) on ${r.split}: n ${r.n} (answered ${c.answered}, unknown ${c.unknown}, escalated ${c.escalated}${c.unlabelled ? `, unlabelled ${c.unlabelled}` : ""}${c.invalid ? `, invalid ${c.invalid}` : ""})`,
  ];
  const m = r.metrics;
  if (!m) {
    lines.push("  nothing to measure yet (no answered or Unknown predictions with a gold label)");
    return `${lines.join("\n")}\n`;
  }
  lines.push(
    `  accuracy ${ci(m.accuracy)}   Brier ${ci(m.brier)}   NLL ${ci(m.nll)}   AURC ${fmt(r.aurc)}`,
    `  equal-width (${r.bins.count} bins): ECE ${ci(m.ece)}   MCE ${ci(m.mce)}`,
    `  equal-mass (${r.bins.count} bins):  ECE ${ci(m.eceMass)}   MCE ${ci(m.mceMass)}`,
    `  classwise ECE ${ci(m.classwiseEce)}   smooth ECE ${ci(m.smoothEce)}   debiased L2 ${ci(m.debiasedL2)}${
      m.rps ? `   RPS ${ci(m.rps)}   off-by-one ${ci(m.offByOne)}` : ""
    }${m.microF1 ? `   micro F1 ${ci(m.microF1)}` : ""}${m.macroF1 ? `   macro F1 ${ci(m.macroF1)}` : ""}`,
  );
  const verdict = consistencyText(r.consistency);
  if (verdict) lines.push(`  ${verdict}`);
  if (r.unknown) {
    const u = r.unknown.rates;
    lines.push(
      `  Unknown: predicted ${rate(u.predicted)}, gold ${rate(u.gold)}`,
      `    precision ${rate(u.precision)}, recall ${rate(u.recall)}, error when answered ${rate(u.riskAnswered)}`,
    );
  }
  if (r.perOption.length > 0) {
    lines.push(
      `  per ${r.item.kind === "multi" ? "label" : "option"} (precision of predicted, recall of gold):`,
    );
    for (const o of r.perOption) {
      lines.push(`    ${o.option}: precision ${rate(o.rates.precision)}, recall ${rate(o.rates.recall)}`);
    }
  }
  if (r.thresholds) {
    for (const t of r.thresholds) {
      lines.push(
        `  ${t.label}: F1 at 0.5 ${fmt(t.f1At05)}, tuned threshold ${fmt(t.tuned)} gives F1 ${fmt(t.f1Tuned)}`,
      );
    }
  }
  const classwise =
    r.resamples.classwise < r.resamples.headline
      ? ` (classwise ECE and the consistency test: ${r.resamples.classwise})`
      : "";
  lines.push(
    `  intervals: 95%, ${r.resamples.headline} resamples${classwise}, seed ${r.seed}; ${intervalsText(r)}`,
  );
  lines.push(`  rates: ${r.rateInterval}`);
  return `${lines.join("\n")}\n`;
}

/** Which interval method each metric used, grouped: "ECE, MCE: ...; accuracy, Brier: ...". */
function intervalsText(r: ItemReport): string {
  const byMethod = new Map<string, string[]>();
  for (const [name, method] of Object.entries(r.intervals ?? {})) {
    if (!method) continue;
    byMethod.set(method, [...(byMethod.get(method) ?? []), name]);
  }
  if (byMethod.size === 0) return "no intervals";
  return [...byMethod].map(([method, names]) => `${names.join(", ")}: ${method}`).join("; ");
}

/**
 * `workbench report RUN [--item I] [--split calibration,test|all] [--bins 15] [--json] [--data-dir D]`: one report
 * per item and split listed (all: the run's rows pooled).
 */
export async function runReportCommand(argv: string[], io: Output = stdio): Promise<number> {
  const { flags, positionals } = parseFlags<{
    item?: string;
    split?: string[];
    bins?: string;
    resamples?: string;
    json?: boolean;
    "data-dir"?: string;
  }>(
    "workbench report",
    argv,
    {
      item: { type: "string" },
      split: { type: "string", multiple: true },
      bins: { type: "string" },
      resamples: { type: "string" },
      json: { type: "boolean" },
      "data-dir": { type: "string" },
    },
    true,
  );
  if (positionals.length !== 1) {
    throw new UsageError(
      "workbench report needs one run: a run id such as run_abc123 (the web app's Runs page lists them), or latest for the newest run",
    );
  }
  const bins = intFlag(flags.bins, "bins", 2, 100);
  const resamples = intFlag(flags.resamples, "resamples", 10, 10_000);
  const split = splitListFlag(flags.split, "split");
  const { storage } = open(flags["data-dir"]);
  try {
    const id = await runIdOf(storage, positionals[0]);
    return await withRun(storage, id, async (data, loaded) => {
      if (Array.isArray(split)) checkRunHas(loaded.run, split, "--split");
      const chosen: SplitChoice[] =
        split === undefined ? [defaultSplit(loaded.run)] : split === "all" ? ["all"] : split;
      const specs = flags.item === undefined ? loaded.specs : [data.spec(loaded, flags.item)];
      const reports: ItemReport[] = [];
      for (const s of chosen) {
        for (const spec of specs) {
          reports.push(itemReport(await data.itemSplit(loaded, spec, s), s, { bins, resamples }));
        }
      }
      const r = loaded.run;
      if (flags.json) {
        const run = { id: r.id, dataset: r.dataset, model: r.model, status: r.status };
        const which = chosen.length === 1 ? { split: chosen[0] } : { splits: chosen };
        io.out(`${JSON.stringify({ run, ...which, items: reports }, null, 2)}\n`);
        return 0;
      }
      io.out(`run ${r.id}: ${r.dataset} on ${r.model} at ${r.endpoint}, ${r.status}\n`);
      for (const rep of reports) io.out(reportText(rep));
      return 0;
    });
  } catch (err) {
    if (err instanceof ApiError) {
      io.err(`workbench report: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await storage.close();
  }
}

/** `--method`: "auto", one method (forced), or a comma-separated candidate list for auto. */
function methodFlag(value: string | undefined): { method: Method | "auto"; methods?: Method[] } {
  if (value === undefined || value === "auto") return { method: "auto" };
  const names = value.split(",").map((s) => s.trim());
  for (const n of names) {
    if (!METHODS.includes(n as Method)) {
      throw new UsageError(
        `--method ${JSON.stringify(n)} is not a method; use auto, one method to force (${METHODS.join(", ")}), or a comma-separated list of candidates for auto`,
      );
    }
  }
  return names.length === 1 ? { method: names[0] as Method } : { method: "auto", methods: names as Method[] };
}

const signed = (x: number) => (x >= 0 ? `+${fmt(x, 3)}` : fmt(x, 3));

const pctText = (x: number) => `${fmt(x * 100, 1)} %`;

/**
 * The escalation threshold and what it buys where the metrics are reported: "escalate below 0.949: 8.0 % answered
 * alone (n = 398), error 4.1 % [1.2 %, 9.8 %] (Clopper-Pearson); chosen for error <= 0.05 on ...".
 */
function answeredLine(
  q: Calibration["file"]["questions"][string],
  nEval: number | undefined,
  fitSplit: string | undefined,
): string {
  const t = q.threshold!;
  const chosen = `chosen for error <= ${t.target_risk} on ${t.chosen_on ?? fitSplit}`;
  if (t.min_confidence === null)
    return `no threshold keeps the error <= ${t.target_risk}: escalate everything (${chosen})`;
  const after = q.metrics?.after;
  const share = q.answered?.share ?? after?.coverage?.[0];
  const error = q.answered?.error ?? after?.answered_error;
  const n = q.answered?.n ?? nEval;
  const head = `escalate below ${fmt(t.min_confidence, 3)}`;
  if (share === undefined) return `${head} (${chosen})`;
  const err = error
    ? `, error ${pctText(error[0])} [${pctText(error[1])}, ${pctText(error[2])}] (Clopper-Pearson)`
    : ", nothing answered alone";
  return `${head}: ${pctText(share)} answered alone (n = ${n ?? "?"})${err}; ${chosen}`;
}

/** How a calibration's items were fitted, selected and evaluated, their candidates and warnings, as lines of text. */
export function candidatesText(c: Calibration): string {
  const lines: string[] = [];
  const f = c.fit;
  if (f?.caveat) lines.push(`note: ${f.caveat}`);
  for (const [item, cands] of Object.entries(c.candidates)) {
    const n = f?.n[item];
    const sel = c.selection?.[item];
    const q = c.file.questions[item];
    lines.push(`${item}: ${q.method}, fitted on ${f?.fitSplit} (n = ${n?.fit ?? "?"})`);
    if (sel) lines.push(`  ${sel.note}`);
    lines.push(
      f?.estimatedBy === "cross-fit"
        ? `  after-metrics: out-of-fold cross-fit estimates on ${f.fitSplit} (n = ${n?.eval ?? "?"}), not held-out data`
        : `  evaluated once on ${f?.evalSplit} (n = ${n?.eval ?? "?"})`,
    );
    lines.push(
      `  candidates on ${sel?.by === "selection-split" ? `the ${sel.on} split` : `${f?.folds ?? 5}-fold cross-fits of ${f?.fitSplit}`} (95% bootstrap intervals; * chosen):`,
    );
    for (const k of cands) {
      const h = k.heldOut;
      const imp = k.improvement
        ? `  NLL gain over ${k.against} ${signed(k.improvement[0])} [${signed(k.improvement[1])}, ${signed(k.improvement[2])}]`
        : "";
      lines.push(
        `  ${k.chosen ? "*" : " "} ${k.method.padEnd(11)} ${
          h
            ? `NLL ${ci(h.nll)}  Brier ${ci(h.brier)}  ECE ${ci(h.ece)}  accuracy ${fmt(h.accuracy[0])}${imp}`
            : k.error?.startsWith("not tried")
              ? k.error
              : `failed: ${k.error}`
        }`,
      );
    }
    const after = q.metrics?.after;
    if (after) {
      lines.push(
        `  after on ${f?.estimatedBy === "cross-fit" ? "out-of-fold rows" : f?.evalSplit}: NLL ${ci(after.nll)}  ECE ${ci(after.ece)}  accuracy ${ci(after.accuracy)}`,
      );
    }
    if (q.threshold) lines.push(`  ${answeredLine(q, n?.eval, f?.fitSplit)}`);
    if (q.label_thresholds?.length || q.label_metrics?.length) {
      const where = f?.estimatedBy === "cross-fit" ? "out-of-fold rows" : f?.evalSplit;
      lines.push(
        `  per label (threshold chosen out-of-fold on ${f?.fitSplit}; F1, ECE and NLL on ${where}, 95% intervals):`,
      );
      const labels = [
        ...new Set([
          ...(q.label_thresholds ?? []).map((t) => t.label),
          ...(q.label_metrics ?? []).map((m) => m.label),
        ]),
      ];
      for (const label of labels) {
        const t = q.label_thresholds?.find((x) => x.label === label);
        const m = q.label_metrics?.find((x) => x.label === label);
        const parts = [`n ${t?.n ?? m?.n}`];
        if (t) parts.push(`threshold ${fmt(t.threshold, 3)}`, `F1 ${ci(t.f1)}`);
        if (m) {
          parts.push(
            `ECE ${ci(m.before.ece)} -> ${ci(m.after.ece)}`,
            `NLL ${ci(m.before.nll)} -> ${ci(m.after.nll)}`,
          );
        }
        lines.push(`    ${label}: ${parts.join(", ")}`);
      }
    }
    for (const w of c.warnings?.[item] ?? []) lines.push(`  warning: ${w}`);
  }
  for (const s of c.skipped) lines.push(`${s.item}: not fitted: ${s.reason}`);
  return `${lines.join("\n")}\n`;
}

const FIT_SPLITS = ["train", "calibration", "test"];

function fitSplitFlag(value: string | undefined, name: string, crossfit: boolean): string | undefined {
  if (value === undefined) return undefined;
  const allowed = crossfit ? [...FIT_SPLITS, "crossfit"] : FIT_SPLITS;
  if (!allowed.includes(value)) {
    throw new UsageError(
      `--${name} must be ${allowed.slice(0, -1).join(", ")} or ${allowed[allowed.length - 1]}; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** The splits a fit uses, chosen from the flags and the splits the run ran. */
interface FitChoice {
  fitSplit: Split;
  evalSplit: Split | "crossfit";
  /** Why the evaluation is cross-fitted though no --eval-split asked for it: one line, given the folds; or null. */
  note: ((folds: number) => string) | null;
}

const HELD_OUT = "run --split calibration,test for a held-out evaluation";

/**
 * Chooses the fit and evaluation splits of a run: the flags given, else fit on calibration (or the run's one
 * split) and evaluate on test, else by cross-fitting (with a note saying so). A choice the run cannot serve is
 * refused with what would work.
 */
function fitChoice(
  run: { id: string; splits: Split[] },
  given: { fit?: Split; eval?: Split | "crossfit"; selection?: Split },
): FitChoice {
  const ran = run.splits.join(", ");
  const asked = [
    ["--fit-split", given.fit],
    ["--eval-split", given.eval],
    ["--selection-split", given.selection],
  ] as const;
  for (const [flag, s] of asked) {
    if (s === undefined || s === "crossfit" || run.splits.includes(s)) continue;
    const instead =
      flag === "--selection-split"
        ? "leave --selection-split out (candidates are then compared by cross-fitting)"
        : `use ${flag} ${run.splits.join(" or ")}${flag === "--eval-split" ? " or crossfit" : ""}`;
    throw badRequest(
      `${flag} ${s}: run ${run.id} has no ${s} split (it ran ${ran}); ${instead}, or start a run with --split calibration,test`,
    );
  }
  const taken: (string | undefined)[] = [given.eval, given.selection];
  const fitSplit =
    given.fit ??
    (["calibration", "train", "test"] as const).find((s) => run.splits.includes(s) && !taken.includes(s));
  if (fitSplit === undefined) {
    const by = asked
      .filter(([flag, s]) => flag !== "--fit-split" && s !== undefined)
      .map(([flag, s]) => `${flag} ${s}`);
    throw badRequest(
      `no split of run ${run.id} is left to fit on: it ran ${ran}, and ${by.join(" and ")} take${by.length === 1 ? "s" : ""} it; use --eval-split crossfit to fit on ${run.splits[0]} and evaluate by cross-fitting, or ${HELD_OUT}`,
    );
  }
  const free = run.splits.filter((s) => s !== fitSplit && s !== given.selection);
  const evalSplit = given.eval ?? (free.includes("test") ? "test" : "crossfit");
  if (evalSplit === fitSplit) {
    throw badRequest(
      `--fit-split and --eval-split are both ${fitSplit}: a calibration evaluated on the rows it was fitted on tells nothing; use --eval-split crossfit (cross-fitting of ${fitSplit})${
        free.length ? ` or --eval-split ${free.join(" or ")}` : ""
      }`,
    );
  }
  if (given.selection !== undefined && (given.selection === fitSplit || given.selection === evalSplit)) {
    throw badRequest(
      `--selection-split ${given.selection} is also the ${given.selection === fitSplit ? "fit" : "evaluation"} split; it must be a third split (candidates compared on rows that neither fit nor evaluate), or leave it out to compare by cross-fitting inside ${fitSplit}`,
    );
  }
  let note: FitChoice["note"] = null;
  if (given.eval === undefined && evalSplit === "crossfit") {
    const other = (["calibration", "train"] as const).find((s) => free.includes(s));
    const instead = other ? `use --eval-split ${other} for a held-out evaluation` : HELD_OUT;
    const why =
      run.splits.length === 1
        ? `the run has only the ${fitSplit} split: fitting on it`
        : !run.splits.includes("test")
          ? `the run has no test split (it ran ${ran}): fitting on ${fitSplit}`
          : `the test split is the ${fitSplit === "test" ? "fit" : "selection"} split: fitting on ${fitSplit}`;
    note = (folds) => `${why} and evaluating by ${folds}-fold cross-fitting; ${instead}`;
  }
  return { fitSplit, evalSplit, note };
}

/**
 * `workbench fit RUN --out calibration.json [--method auto|NAME|a,b,c] [--selection-split S] [--item I]
 * [--fit-split calibration] [--eval-split test|crossfit] [--target-risk 0.05] [--conservative] [--select nll|brier]
 * [--data-dir D]`: fits (a forced method, or the method chosen by cross-fitting inside the fit split or on a separate
 * selection split), evaluates once on the evaluation split, stores the calibration in the data folder and writes
 * the calibration file; prints how each method was selected and every warning.
 */
export async function runFitCommand(argv: string[], io: Output = stdio): Promise<number> {
  const { flags, positionals } = parseFlags<{
    method?: string;
    out?: string;
    item?: string;
    "fit-split"?: string;
    "eval-split"?: string;
    "selection-split"?: string;
    "target-risk"?: string;
    conservative?: boolean;
    select?: string;
    resamples?: string;
    "data-dir"?: string;
  }>(
    "workbench fit",
    argv,
    {
      method: { type: "string" },
      out: { type: "string" },
      item: { type: "string" },
      "fit-split": { type: "string" },
      "eval-split": { type: "string" },
      "selection-split": { type: "string" },
      "target-risk": { type: "string" },
      conservative: { type: "boolean" },
      select: { type: "string" },
      resamples: { type: "string" },
      "data-dir": { type: "string" },
    },
    true,
  );
  if (positionals.length !== 1) {
    throw new UsageError(
      "workbench fit needs one run: a run id such as run_abc123, or latest for the newest run (workbench fit latest --method auto --out calibration.json)",
    );
  }
  if (!flags.out) {
    throw new UsageError(
      "workbench fit needs --out FILE, the calibration file to write (workbench fit latest --method auto --out calibration.json)",
    );
  }
  const fitSplit = fitSplitFlag(flags["fit-split"], "fit-split", false);
  const evalSplit = fitSplitFlag(flags["eval-split"], "eval-split", true);
  const selectionSplit = fitSplitFlag(flags["selection-split"], "selection-split", false);
  if (flags.select !== undefined && flags.select !== "nll" && flags.select !== "brier") {
    throw new UsageError(`--select must be nll or brier; got ${JSON.stringify(flags.select)}`);
  }
  const method = methodFlag(flags.method);
  if (selectionSplit !== undefined && method.method !== "auto") {
    throw new UsageError(
      `--selection-split ${selectionSplit} compares candidates, but --method ${method.method} forces one (no comparison); leave one of them out`,
    );
  }
  const request: FitRequest = {
    item: flags.item,
    ...method,
    targetRisk: numberFlag(flags["target-risk"], "target-risk", 0, 1),
    conservative: flags.conservative ?? false,
    select: flags.select as "nll" | "brier" | undefined,
    resamples: intFlag(flags.resamples, "resamples", 10, 10_000),
  };
  const { storage } = open(flags["data-dir"]);
  try {
    const id = await runIdOf(storage, positionals[0]);
    const c = await withRun(storage, id, async (data, loaded) => {
      const choice = fitChoice(loaded.run, {
        fit: fitSplit as Split | undefined,
        eval: evalSplit as Split | "crossfit" | undefined,
        selection: selectionSplit as Split | undefined,
      });
      const fitted = await fitRun(data, loaded, {
        ...request,
        fitSplit: choice.fitSplit,
        evalSplit: choice.evalSplit,
        ...(selectionSplit !== undefined ? { selectionSplit: selectionSplit as Split } : {}),
      });
      if (choice.note) io.err(`${choice.note(fitted.fit?.folds ?? 5)}\n`);
      return fitted;
    });
    await storage.saveCalibration({
      id: c.id,
      runId: c.runId,
      createdAt: c.createdAt,
      payload: c as unknown as Record<string, unknown>,
    });
    writeFileSync(flags.out, `${JSON.stringify(c.file, null, 2)}\n`);
    io.out(candidatesText(c));
    io.out(`calibration ${c.id} stored; file written to ${flags.out}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ApiError) {
      io.err(`workbench fit: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await storage.close();
  }
}

/** The check's verdict as lines of text. */
function checkText(c: RunCheck): string {
  const lines: string[] = [];
  for (const [name, q] of Object.entries(c.questions)) {
    const eceI = q.eceInterval ? `[${fmt(q.eceInterval[0])}, ${fmt(q.eceInterval[1])}]` : "(none recorded)";
    const aeI = q.answeredErrorInterval
      ? `[${fmt(q.answeredErrorInterval[0])}, ${fmt(q.answeredErrorInterval[1])}]`
      : "(none recorded)";
    lines.push(
      `  ${q.ok ? "ok   " : "DRIFT"} ${name}: n ${q.n}, calibrated ECE ${fmt(q.ece)} vs ${eceI}, answered error ${fmt(q.answeredError)} vs ${aeI}, coverage ${fmt(q.coverage)}`,
    );
  }
  for (const s of c.skipped) lines.push(`  skipped ${s}: the run has no usable predictions for it`);
  if (c.ok)
    lines.unshift(
      `ok: run ${c.runId} (${c.split}) is served by [${c.servedBy.join(", ")}] and stays within the file's intervals`,
    );
  else {
    lines.unshift(`FAILED: run ${c.runId} (${c.split}) does not match the calibration file:`);
    for (const r of c.reasons) lines.push(`  reason: ${r}`);
  }
  return `${lines.join("\n")}\n`;
}

function readFile(path: string): CalibrationFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UsageError(
      `--calibration ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  try {
    return parseCalibrationFile(text);
  } catch (err) {
    if (err instanceof CalibrationFileError) {
      throw new UsageError(
        `--calibration ${path} is not a valid calibration file:\n${err.errors.map((e) => `  ${e.path}: ${e.message}`).join("\n")}`,
      );
    }
    throw err;
  }
}

/**
 * `workbench check --calibration FILE --dataset D --server URL --model M [--api-key-env VAR]
 * [--split calibration,test|all] [--limit N] [--concurrency 16] [--json] [--data-dir D]`: runs the dataset (the
 * file's evaluation split unless --split; several splits are checked pooled) against the server, stores the run,
 * and checks it against the file. Exit 0 when it matches, 1 with the reasons when the served model changed or
 * calibration drifted (or the run failed), 2 on a bad command line.
 */
export async function runCheckCommand(argv: string[], io: Output = stdio): Promise<number> {
  const { flags } = parseFlags<{
    calibration?: string;
    dataset?: string;
    server?: string;
    model?: string;
    "api-key-env"?: string;
    split?: string[];
    limit?: string;
    concurrency?: string;
    json?: boolean;
    "data-dir"?: string;
  }>("workbench check", argv, {
    calibration: { type: "string" },
    dataset: { type: "string" },
    server: { type: "string" },
    model: { type: "string" },
    "api-key-env": { type: "string" },
    split: { type: "string", multiple: true },
    limit: { type: "string" },
    concurrency: { type: "string" },
    json: { type: "boolean" },
    "data-dir": { type: "string" },
  });
  for (const required of ["calibration", "dataset", "server", "model"] as const) {
    if (!flags[required]) {
      throw new UsageError(
        `workbench check needs --${required}; for example: workbench check --calibration calibration.json --dataset penguins --server ${REFERENCE_URL} --model workbench-latest (workbench check --help shows every flag)`,
      );
    }
  }
  const given = splitListFlag(flags.split, "split");
  const file = readFile(flags.calibration as string);
  const apiKey = apiKeyFromEnv(flags["api-key-env"]);
  const fileSplit = file.source.eval_split === "crossfit" ? file.source.fit_split : file.source.eval_split;
  const listed =
    given ??
    ((SPLITS as readonly string[]).includes(fileSplit) ? [fileSplit as Split] : (["test"] as Split[]));
  const limit = intFlag(flags.limit, "limit", 1, Number.MAX_SAFE_INTEGER);
  const concurrency = intFlag(flags.concurrency, "concurrency", CONCURRENCY.min, CONCURRENCY.max);
  const { storage, dataDir } = open(flags["data-dir"]);
  const box = new SecretBox(loadSecretKey(dataDir));
  const engine = new RunEngine({ storage, secrets: box });
  try {
    const splits = await splitsToRun(storage, flags.dataset, listed, "checks");
    // one split is checked on its own; several on the run's rows pooled (the run holds exactly those)
    const split: SplitChoice = splits.length === 1 ? splits[0] : "all";
    if (file.source.dataset.name !== flags.dataset) {
      io.err(`note: the file was fitted on ${file.source.dataset.name}, this check runs ${flags.dataset}\n`);
    }
    const serverId = await serverFor(storage, box, flags.server as string, flags.model as string, apiKey);
    let created: RunSummary;
    try {
      created = await engine.create({
        dataset: flags.dataset as string,
        serverId,
        model: flags.model as string,
        splits,
        ...(concurrency !== undefined ? { concurrency } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
    } catch (err) {
      if (err instanceof ApiError) throw new UsageError(err.message);
      throw err;
    }
    io.err(
      `run ${created.id}: ${created.progress.total} examples of ${flags.dataset} (${splits.join(", ")})\n`,
    );
    const printer = new ProgressPrinter(process.stderr);
    const unfollow = engine.follow(created.id, { progress: (p) => printer.update(p) });
    await engine.settle(created.id);
    unfollow?.();
    const summary = await engine.summary(created.id);
    printer.end(summary.progress);
    if (summary.status !== "done") {
      io.err(`FAILED: run ${summary.id} ${summary.status}${summary.error ? `: ${summary.error}` : ""}\n`);
      return 1;
    }
    const result = await withRun(storage, created.id, (data, loaded) =>
      checkLoadedRun(data, loaded, file, { split }),
    );
    if (flags.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
    else io.out(checkText(result));
    return result.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof ApiError) {
      io.err(`workbench check: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await engine.close();
    await storage.close();
  }
}
