/**
 * Runs, their item specs and typed item data, read from the stored analysis columns (storage `itemValues`), and
 * what is computed from them (item data, reports, comparisons, headlines), kept in one lru-cache per storage by
 * the run's version.
 */

import type { Split } from "@decision-workbench/datasets";
import { LRUCache } from "lru-cache";
import { ApiError, notFound } from "../errors.js";
import type { SplitChoice } from "../shapes/common.js";
import type { ItemReport, ReportQuery } from "../shapes/reports.js";
import type { ItemColumns } from "../storage/item-columns.js";
import type { RunRow, Storage, StoredRun } from "../storage/types.js";
import { type Headline, TopSums } from "./headline.js";
import type { ItemSpec } from "./item-spec.js";
import { type ItemData, itemDataOf } from "./matrix.js";
import { TooLargeError } from "./metrics.js";
import { baseKey, itemReport, reportBase } from "./report.js";

/** A run with its items' specs and the version what is computed from it is valid for. */
export interface LoadedRun {
  run: StoredRun;
  specs: ItemSpec[];
  /** Changes whenever predictions are added or the status changes (status and prediction count). */
  version: string;
}

/**
 * What the cache holds at most, in rows of item data (about 100 bytes a row plus 16 per option): 400,000 rows are
 * about 60 MB. A computed payload (a report, a comparison, a headline) counts as PAYLOAD_ROWS.
 */
const CACHED_ROWS = 400_000;
const PAYLOAD_ROWS = 1_000;

/** Live runs whose headline sums are kept (a few hundred bytes each). */
const KEPT_RUNS = 1_000;

/**
 * One live run's kept headline sums: per item, those of its packed chunks up to chunk number `after` (packed chunks
 * never change, so each headline reads only the chunks packed since the last one and the loose rows).
 */
interface KeptSums {
  sums: TopSums[];
  after: number[];
  /** The pass over them under way (passes take turns). */
  turn: Promise<unknown>;
}

function sizeOf(value: object): number {
  if ("rowProbs" in value && "status" in value) return Math.max(1, (value as ItemData).status.length);
  return PAYLOAD_ROWS;
}

function reportKey(q: ReportQuery): string {
  return [
    q.bins ?? 15,
    q.binning ?? "width",
    q.view ?? "top",
    q.resamples ?? "auto",
    q.interval ?? "wilson",
    q.ci ?? "auto",
  ].join("|");
}

/** The splits of a choice (null = all rows). */
export function splitsOf(choice: SplitChoice): Split[] | null {
  return choice === "all" ? null : [choice];
}

/** Data access for the analysis routes: runs, item specs, typed item data and what is computed from them. */
export class AnalysisData {
  private readonly cache: LRUCache<string, object, () => Promise<object>>;
  /** Live runs' headline sums of their packed chunks, by run and split (pooledHeadline). */
  private readonly kept = new LRUCache<string, KeptSums>({ max: KEPT_RUNS });

  /** `maxRows`: what the cache holds at most (CACHED_ROWS). */
  constructor(
    readonly storage: Storage,
    maxRows = CACHED_ROWS,
  ) {
    this.cache = new LRUCache({
      maxSize: maxRows,
      sizeCalculation: sizeOf,
      fetchMethod: (_key, _stale, { context }) => context(),
      // a computation pushed out of the cache while under way still answers the requests waiting for it
      ignoreFetchAbort: true,
    });
  }

  /** The run, or a 404 that says how to find one. */
  async run(id: string): Promise<LoadedRun> {
    const run = await this.storage.getStoredRun(id);
    if (!run) throw notFound("run", id, "list the runs with GET /api/runs");
    const c = run.counters;
    return { run, specs: run.items ?? [], version: `${run.status}|${c.answered + c.unknown + c.escalated}` };
  }

  /** The spec of an item of the run (the first item when none is named), or a 400 listing the items. */
  spec(loaded: LoadedRun, item: string | undefined): ItemSpec {
    if (loaded.specs.length === 0) {
      throw new ApiError(
        409,
        "no_predictions",
        `run ${loaded.run.id} has no predictions yet; wait for it to answer`,
      );
    }
    if (item === undefined) return loaded.specs[0];
    const spec = loaded.specs.find((s) => s.name === item);
    if (!spec) {
      throw new ApiError(
        400,
        "invalid_request",
        `run ${loaded.run.id} has no item ${JSON.stringify(item)}; its items are ${loaded.specs.map((s) => s.name).join(", ")}`,
      );
    }
    return spec;
  }

  /** Every row of one item of the run (all splits), as typed arrays. */
  itemData(loaded: LoadedRun, spec: ItemSpec): Promise<ItemData> {
    return this.itemSplit(loaded, spec, "all");
  }

  /** One item's rows on the chosen split, read from its stored analysis columns (cached per run version). */
  itemSplit(loaded: LoadedRun, spec: ItemSpec, split: SplitChoice): Promise<ItemData> {
    return this.cached(`item|${loaded.run.id}|${loaded.version}|${spec.name}|${split}`, async () => {
      const index = loaded.specs.findIndex((s) => s.name === spec.name);
      const columns = await this.storage.itemColumns(loaded.run.id, index, splitsOf(split) ?? undefined);
      return itemDataOf(spec, columns);
    });
  }

  /** One item's report (cached per run version, item, split and options). */
  report(loaded: LoadedRun, q: ReportQuery): Promise<ItemReport> {
    const spec = this.spec(loaded, q.item);
    const split = q.split ?? defaultSplit(loaded.run);
    const at = `${loaded.run.id}|${loaded.version}|${spec.name}|${split}`;
    return this.cached(`report|${at}|${reportKey(q)}`, async () => {
      const d = await this.itemSplit(loaded, spec, split);
      const opts = {
        bins: q.bins,
        binning: q.binning,
        view: q.view,
        resamples: q.resamples,
        interval: q.interval,
        ci: q.ci,
      };
      try {
        // the costly part does not depend on binning or view: switching those reuses it
        const base = await this.cached(`base|${at}|${baseKey(opts)}`, async () => reportBase(d, opts));
        return itemReport(d, split, opts, base);
      } catch (err) {
        if (err instanceof TooLargeError) throw new ApiError(400, "too_large", err.message);
        throw err;
      }
    });
  }

  /**
   * The run's headline: top-label accuracy and ECE over every item on its default split, read part by part (one
   * packed chunk at a time) into sums: it holds one chunk's columns at a time, never the run's.
   */
  async headline(runId: string): Promise<Headline> {
    const loaded = await this.run(runId);
    return this.cached(`headline|${loaded.run.id}|${loaded.version}`, () => this.pooledHeadline(loaded));
  }

  /**
   * The headline of the run's rows as stored now. A live run's sums of its packed chunks are kept between calls,
   * so each call reads only the chunks packed since the last one and the loose rows; the last call, once every
   * example is stored, uses them and lets them go.
   */
  private pooledHeadline(loaded: LoadedRun): Promise<Headline> {
    const { run, specs } = loaded;
    const splits = splitsOf(defaultSplit(run)) ?? undefined;
    const live = (run.status === "running" || run.status === "queued") && run.counters.done < run.total;
    const key = `${run.id}|${splits?.join(",") ?? "all"}`;
    const found = this.kept.get(key);
    if (!live) this.kept.delete(key);
    const kept = found ?? {
      sums: specs.map(() => new TopSums()),
      after: specs.map(() => -1),
      turn: Promise.resolve(),
    };
    if (live) this.kept.set(key, kept);
    // one pass at a time over a run's kept sums: two at once would add the same chunks twice
    const pass = kept.turn.then(async () => {
      const total = new TopSums();
      for (const [index, spec] of specs.entries()) {
        const visit = (part: ItemColumns, chunk: number | null) => {
          if (chunk === null) return total.add(spec, part);
          kept.sums[index].add(spec, part);
          kept.after[index] = chunk;
        };
        await this.storage.eachItemPart(run.id, index, splits, visit, kept.after[index]);
        total.merge(kept.sums[index]);
      }
      return total.headline();
    });
    kept.turn = pass.catch(() => {});
    return pass;
  }

  /** A computation keyed by `key` (which must include the run versions), kept in the cache; a failure is not. */
  cached<T extends object>(key: string, compute: () => Promise<T> | T): Promise<T> {
    return this.cache.fetch(key, { context: async () => compute() }) as Promise<T>;
  }
}

/** The split a report shows by default: test when the run has it, else all rows. */
export function defaultSplit(run: RunRow): SplitChoice {
  return run.splits.includes("test") ? "test" : "all";
}

const shared = new WeakMap<Storage, AnalysisData>();

/** The analysis data (and cache) of a storage: one per storage, shared by the routes and the engine. */
export function analysisData(storage: Storage): AnalysisData {
  let d = shared.get(storage);
  if (!d) {
    d = new AnalysisData(storage);
    shared.set(storage, d);
  }
  return d;
}
