/**
 * What a freshly started API does in the background so that the first look at a report is not the slow one:
 * it compiles the analysis' hot code on a small synthetic run, then prepares the reports of the most recently
 * finished runs whose default reports are not stored yet (stored before an upgrade changed the stored format, a crash
 * while the engine was storing them, a run that ended cancelled or failed in another process).
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { mulberry32 } from "@decision-workbench/calibration";
import { NOT_STATED, type Split } from "@decision-workbench/datasets";
import type { AnalysisRow, Storage, WorkbenchStorage } from "../storage/types.js";
import { compareItem } from "./compare.js";
import { analysisData, SETTLED, warmReports } from "./data.js";
import { decodeItemData, encodeItemData } from "./item-codec.js";
import type { ItemSpec } from "./item-spec.js";
import { type ItemData, ItemDataBuilder, restrictSplits } from "./matrix.js";
import { itemReport } from "./report.js";

/** The synthetic items: a choice with `not stated` (the single-label path) and a multi-label item. */
const SPECS: ItemSpec[] = [
  { name: "choice", kind: "choice", options: ["a", "b", "c", "d"], notStated: true },
  { name: "labels", kind: "multi", options: ["p", "q", "r"], notStated: true },
];

/** Rows of the synthetic run; enough for V8 to optimise the loops, few enough to take a few tens of ms. */
const WARM_UP_ROWS = 4000;

/** A synthetic run's rows of one item (seeded, so every start does the same work). */
function syntheticRows(spec: ItemSpec, seed: number): AnalysisRow[] {
  const rng = mulberry32(seed);
  const keys = [...spec.options, NOT_STATED];
  const splits: Split[] = ["calibration", "test"];
  const rows: AnalysisRow[] = [];
  for (let i = 0; i < WARM_UP_ROWS; i++) {
    const p: Record<string, number> = {};
    let sum = 0;
    for (const k of keys) sum += p[k] = 0.01 + 0.98 * rng.float(); // within (0, 1): a valid multi-label score too
    if (spec.kind !== "multi") for (const k of keys) p[k] /= sum;
    const top = keys.reduce((best, k) => (p[k] > p[best] ? k : best), keys[0]);
    const pick = keys[Math.floor(rng.float() * keys.length)];
    const multi = spec.kind === "multi";
    const unknown = top === NOT_STATED;
    rows.push({
      exampleId: `ex${i}`,
      split: splits[i % 2],
      item: spec.name,
      gold: multi ? spec.options.filter(() => rng.float() < 0.4) : pick,
      status: i % 50 === 0 ? "escalated" : unknown ? "unknown" : "answered",
      answer: unknown ? null : multi ? spec.options.filter((o) => p[o] > 0.5) : top,
      confidence: p[top],
      probabilities: i % 50 === 0 ? null : p,
      reason: unknown ? NOT_STATED : null,
      servedBy: "warm-up",
    });
  }
  return rows;
}

/** One synthetic run's item data, through the stored form like data read back after a restart. */
function syntheticData(spec: ItemSpec, seed: number): ItemData {
  const b = new ItemDataBuilder(spec);
  for (const r of syntheticRows(spec, seed)) b.add(r);
  return decodeItemData(encodeItemData(b.finish()), spec) ?? b.finish();
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs a report and a comparison of each synthetic item once (about 0.3 s of CPU on 2 cores), yielding to
 * the event loop between steps so that requests are not held up for long. The first real report of a
 * 100,000-prediction run then runs compiled code: measured 0.44-0.50 s before, 0.31-0.35 s after.
 */
export async function compileAnalysis(stopped: () => boolean = () => false): Promise<void> {
  for (const spec of SPECS) {
    if (stopped()) return;
    const a = restrictSplits(syntheticData(spec, 1), ["test"]);
    await nextTurn();
    if (stopped()) return;
    itemReport(a, "test", { resamples: 50 });
    await nextTurn();
    if (stopped()) return;
    const b = restrictSplits(syntheticData(spec, 2), ["test"]);
    const run = (id: string, data: ItemData) => ({ id, model: "warm-up", servedBy: [], data });
    compareItem([run("a", a), run("b", b)], { split: "test", resamples: 50 });
    await nextTurn();
  }
}

/** Only this many of the most recently finished runs are looked at, and prepared at most... */
export const PREPARED_RUNS = 20;
/**
 * ...and, after the first, only while the predictions of the runs prepared (the first included) add up to at most
 * this many: about 15 s of one core's work in the background (a run's conversion and reports take 1-1.5 s per
 * 100,000 predictions). Runs are prepared one at a time and their converted data dropped from memory afterwards, so
 * the memory a preparation takes (about 60 MB per 100,000 predictions, briefly) does not add up.
 */
export const PREPARED_PREDICTIONS = 1_000_000;

let collector: (() => void) | undefined;

/**
 * A full garbage collection, between two prepared runs. V8 collects a run's conversion lazily, so preparing several
 * runs in a row stacked their garbage: four 100,000-prediction runs peaked at 259-294 MB of RSS, against 227-248 MB
 * with a collection before each run after the first. The function is node's `gc` under --expose-gc; otherwise the
 * flag is turned on here and `gc` taken from a new context (the flag is process-wide from then on: contexts and
 * worker threads made later also get a global `gc`; this context's globals are not changed).
 */
function collectGarbage(): void {
  if (!collector) {
    collector = (globalThis as { gc?: () => void }).gc;
    try {
      if (!collector) {
        setFlagsFromString("--expose-gc");
        collector = runInNewContext("gc") as () => void;
      }
    } catch {
      collector = () => {};
    }
  }
  collector();
}

/**
 * Prepares the default reports of the most recently finished runs (`bounds.runs` of them looked at) whose default
 * reports are not stored beside them, newest first, one at a time, while their predictions stay within
 * `bounds.predictions` (the bounds above by default; the newest not prepared is prepared whatever its size, and a run
 * that fails counts for nothing). A run whose converted data are stored costs one read per item; otherwise its
 * predictions are converted and the result stored beside it. Its converted data are then dropped from memory; its
 * reports stay stored beside it (and in memory while the payload cache has room). A run that cannot be prepared
 * (deleted meanwhile, an item too large) is skipped. Stops between items once `stopped()`; a run left unfinished
 * then is not counted. Resolves to the ids of the runs prepared.
 */
export async function prepareRecentRuns(
  storage: Pick<WorkbenchStorage, "listStoredRuns"> & Storage,
  stopped: () => boolean = () => false,
  bounds: { runs?: number; predictions?: number } = {},
): Promise<string[]> {
  const maxRuns = bounds.runs ?? PREPARED_RUNS;
  const maxPredictions = bounds.predictions ?? PREPARED_PREDICTIONS;
  const data = analysisData(storage);
  const finished = (await storage.listStoredRuns())
    .filter((r) => SETTLED.includes(r.status))
    .sort((a, b) => (b.finishedAt ?? "").localeCompare(a.finishedAt ?? ""))
    .slice(0, maxRuns);
  const prepared: string[] = [];
  let predictions = 0;
  let garbage = false;
  for (const run of finished) {
    if (stopped()) break;
    try {
      if (await data.defaultReportsStored(await data.run(run.id))) continue;
      const c = run.counters;
      const size = c.answered + c.unknown + c.escalated;
      if (prepared.length > 0 && predictions + size > maxPredictions) break;
      if (garbage) collectGarbage();
      garbage = true;
      await warmReports(storage, run.id, { stopped, keepItems: false });
      if (stopped()) break;
      predictions += size;
    } catch {
      continue; // deleted meanwhile, or a report that cannot be computed: its first view will say why
    }
    prepared.push(run.id);
  }
  return prepared;
}
