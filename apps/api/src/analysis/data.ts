/** Loads a run's predictions once per item as typed arrays, and caches them (and reports) by the run's version. */

import type { Split } from "@decision-workbench/datasets";
import { ApiError, notFound } from "../errors.js";
import type { AnalysisRow, PredictionFilter, RunRow, RunStatus, Storage } from "../storage/types.js";
import { type Headline, headlineOf } from "./headline.js";
import { decodeItemData, encodeItemData, ITEM_CODEC_VERSION } from "./item-codec.js";
import { type ItemSpec, inferSpec, taskSpecs } from "./item-spec.js";
import { type ItemData, ItemDataBuilder, restrictSplits } from "./matrix.js";
import { TooLargeError } from "./metrics.js";
import { baseKey, type ItemReport, itemReport, type ReportOptions, reportBase } from "./report.js";
import { topView } from "./views.js";

/** A run's predictions a page at a time, with only what the analysis reads. */
export async function* analysisRows(
  storage: Storage,
  runId: string,
  filter: PredictionFilter,
): AsyncGenerator<AnalysisRow> {
  for await (const page of storage.analysisPages(runId, filter)) yield* page;
}

/** A least-recently-used map bounded by a total weight (entry count by default). */
export class Lru<V> {
  private readonly map = new Map<string, { v: V; w: number }>();
  private total = 0;
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (e !== undefined) {
      this.map.delete(key);
      this.map.set(key, e);
    }
    return e?.v;
  }
  set(key: string, v: V, weight = 1): void {
    this.delete(key);
    this.map.set(key, { v, w: weight });
    this.total += weight;
    while (this.total > this.max && this.map.size > 1) this.delete(this.map.keys().next().value as string);
  }
  /** Sets the weight of an entry once it is known (e.g. when a load finishes). */
  weigh(key: string, weight: number): void {
    const e = this.map.get(key);
    if (!e) return;
    this.total += weight - e.w;
    e.w = weight;
    for (const other of [...this.map.keys()]) {
      if (this.total <= this.max) break;
      if (other !== key) this.delete(other);
    }
  }
  /** The entry under `key`, without making it the most recently used. */
  peek(key: string): V | undefined {
    return this.map.get(key)?.v;
  }
  /** Deletes every entry that matches. */
  deleteWhere(match: (key: string, v: V) => boolean): void {
    for (const [key, e] of [...this.map]) if (match(key, e.v)) this.delete(key);
  }
  delete(key: string): void {
    const e = this.map.get(key);
    if (e) {
      this.total -= e.w;
      this.map.delete(key);
    }
  }
}

/** Rows of item data kept in memory at most (about 100 bytes a row plus 16 per option; reasoning counted apart). */
export const CACHED_ROWS = 400_000;

/** An item's cache weight: its rows, plus its reasoning and reason texts at 100 characters a row. */
function weightOf(d: ItemData): number {
  let chars = 0;
  for (const note of d.notes.values()) chars += (note.reason?.length ?? 0) + (note.reasoning?.length ?? 0);
  return Math.max(1, d.status.length + Math.ceil(chars / 100));
}

/** A run with its items' specs and the version its cached data are valid for. */
export interface LoadedRun {
  run: RunRow;
  specs: ItemSpec[];
  /** Changes whenever predictions are added (status and prediction count). */
  version: string;
  /** The run no longer changes (done, cancelled or failed): what is computed from it is also stored beside it. */
  settled: boolean;
  /** Its answered examples when loaded (each holds one prediction per item). */
  answers: number;
}

/** The statuses of a run that no longer changes. */
export const SETTLED: readonly RunStatus[] = ["done", "cancelled", "failed", "stopped"];

/** Bumped when a report's content changes for the same options: stored reports of another version are not read. */
const REPORT_VERSION = 1;

/** The report endpoint's query. */
export interface ReportQuery extends Omit<ReportOptions, "seed"> {
  item?: string;
  split?: SplitChoice;
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

/**
 * Most predictions converted in one pass over a run (every item's builder filled at once): the peak memory of a
 * conversion grows with the items of a pass, so a larger run is read in several passes.
 */
export const ONE_PASS_ROWS = 150_000;

/** The first of `specs` that one pass over the run converts (at least one). */
function onePass(loaded: LoadedRun, specs: ItemSpec[]): ItemSpec[] {
  return specs.slice(0, Math.max(1, Math.floor(ONE_PASS_ROWS / Math.max(1, loaded.answers))));
}

/** Where an item's converted data is kept in memory (per run version). */
function itemCacheKey(loaded: LoadedRun, item: string): string {
  return `${loaded.run.id}|${loaded.version}|${item}`;
}

/** Where an item's converted data is stored beside a settled run. */
function itemStoreKey(item: string): string {
  return `item:${ITEM_CODEC_VERSION}:${item}`;
}

/** The split values a query may name: one split, or "all". */
export type SplitChoice = Split | "all";

/** The splits of a choice (null = all rows). */
export function splitsOf(choice: SplitChoice): Split[] | null {
  return choice === "all" ? null : [choice];
}

/** Data access for the analysis routes: runs, item specs and typed item data, cached per run version. */
export class AnalysisData {
  private readonly items = new Lru<Promise<ItemData>>(CACHED_ROWS);
  /** The item loads that have finished. */
  private readonly loadedItems = new WeakSet<Promise<ItemData>>();
  /** Caches of computed payloads (reports, comparisons), keyed by run versions and options. */
  readonly payloads = new Lru<Promise<unknown>>(64);

  constructor(readonly storage: Storage) {}

  /** The run, or a 404 that says how to find one. */
  async run(id: string): Promise<LoadedRun> {
    const run = await this.storage.getRun(id);
    if (!run) throw notFound("run", id, "list the runs with GET /api/runs");
    const { version, answers } = await this.version(run);
    const task = await this.storage.getTask(run.dataset);
    let specs: ItemSpec[];
    if (task) specs = taskSpecs(task);
    else {
      const byItem = new Map<string, AnalysisRow[]>();
      for await (const r of analysisRows(this.storage, run.id, {})) {
        const rows = byItem.get(r.item);
        if (rows) rows.push(r);
        else byItem.set(r.item, [r]);
      }
      specs = [...byItem].map(([name, rows]) => inferSpec(name, rows));
    }
    return { run, specs, version, settled: SETTLED.includes(run.status), answers };
  }

  /** The run's status and prediction count (a run deleted meanwhile gets a version nothing else has). */
  private async version(run: RunRow): Promise<{ version: string; answers: number }> {
    const c = (await this.storage.getStoredRun(run.id))?.counters;
    if (!c) return { version: `${run.status}|gone|${Date.now()}|${Math.random()}`, answers: 0 };
    return { version: `${run.status}|${c.answered + c.unknown + c.escalated}`, answers: c.done };
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

  /** Every row of one item of the run (all splits), as typed arrays; loaded once per run version. */
  itemData(loaded: LoadedRun, spec: ItemSpec): Promise<ItemData> {
    return this.cachedItem(itemCacheKey(loaded, spec.name), () => this.loadItem(loaded, spec));
  }

  /**
   * An item's data: stored beside a settled run after its first conversion, read back from there after that. An
   * answer's items are stored together, so a settled run's conversion reads the run's other items in the same pass
   * (within ONE_PASS_ROWS) and stores them too; only the item asked for is kept in memory.
   */
  private async loadItem(loaded: LoadedRun, spec: ItemSpec): Promise<ItemData> {
    const { run, version, settled } = loaded;
    if (!settled) return (await this.convert(loaded, [spec], {})).get(spec.name) as ItemData;
    const bytes = await this.storage.getAnalysisCache(run.id, itemStoreKey(spec.name), version);
    const stored = bytes && decodeItemData(bytes, spec);
    if (stored) return stored;
    // the others not already loaded (which a settled run also has stored)
    const others = loaded.specs.filter(
      (s) => s.name !== spec.name && !this.items.peek(itemCacheKey(loaded, s.name)),
    );
    const all = await this.convert(loaded, onePass(loaded, [spec, ...others]), {});
    for (const [name, d] of all) {
      await this.storage.putAnalysisCache(run.id, itemStoreKey(name), version, encodeItemData(d));
    }
    return all.get(spec.name) as ItemData;
  }

  /**
   * The stored predictions of the given items that match `filter`, converted: read a page at a time, in as few
   * passes over the run as ONE_PASS_ROWS allows.
   */
  private async convert(
    loaded: LoadedRun,
    specs: ItemSpec[],
    filter: PredictionFilter,
  ): Promise<Map<string, ItemData>> {
    const out = new Map<string, ItemData>();
    // every answered example has a row of each item: with no split filter, that is how many rows come
    const rows = filter.split === undefined ? loaded.answers : 0;
    for (let at = 0; at < specs.length; ) {
      const pass = onePass(loaded, specs.slice(at));
      at += pass.length;
      const builders = new Map(pass.map((spec) => [spec.name, new ItemDataBuilder(spec, rows)]));
      const only = pass.length === 1 ? { item: pass[0].name } : {};
      for await (const page of this.storage.analysisPages(loaded.run.id, { ...filter, ...only })) {
        for (const r of page) builders.get(r.item)?.add(r);
      }
      for (const [name, b] of builders) out.set(name, b.finish());
    }
    return out;
  }

  /**
   * Drops a run's loaded item data from memory (what is stored beside it stays, and is read back when next
   * needed). A load still under way for another request is left alone, so it is not started twice.
   */
  forgetItems(runId: string): void {
    this.items.deleteWhere((key, p) => key.startsWith(`${runId}|`) && this.loadedItems.has(p));
  }

  /** Whether the default report of every item of the run is stored beside it (for its current version). */
  async defaultReportsStored(loaded: LoadedRun): Promise<boolean> {
    if (!loaded.settled) return false;
    for (const spec of loaded.specs) {
      const key = this.reportStoreKey(spec.name, defaultSplit(loaded.run), {});
      if (!(await this.storage.getAnalysisCache(loaded.run.id, key, loaded.version))) return false;
    }
    return true;
  }

  /** One item's rows on the chosen split (cached like the whole item). */
  itemSplit(loaded: LoadedRun, spec: ItemSpec, split: SplitChoice): Promise<ItemData> {
    if (split === "all") return this.itemData(loaded, spec);
    return this.cachedItem(`${loaded.run.id}|${loaded.version}|${spec.name}|${split}`, () =>
      this.itemData(loaded, spec).then((d) => restrictSplits(d, splitsOf(split))),
    );
  }

  /** Item data under `key` in the row-weighted cache, loaded once; a failed load is not kept. */
  private cachedItem(key: string, load: () => Promise<ItemData>): Promise<ItemData> {
    let p = this.items.get(key);
    if (!p) {
      const loading = load();
      p = loading;
      this.items.set(key, loading, 1);
      // the entry may have been dropped (and loaded again) meanwhile: only this load's own entry is changed
      loading.then(
        (d) => {
          this.loadedItems.add(loading);
          if (this.items.peek(key) === loading) this.items.weigh(key, weightOf(d));
        },
        () => {
          if (this.items.peek(key) === loading) this.items.delete(key);
        },
      );
    }
    return p;
  }

  /** One item's report (cached per run version, item, split and options). */
  report(loaded: LoadedRun, q: ReportQuery): Promise<ItemReport> {
    const spec = this.spec(loaded, q.item);
    const split = q.split ?? defaultSplit(loaded.run);
    return this.stored(loaded, this.reportStoreKey(spec.name, split, q), async () => {
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
        const base = await this.cached(
          `base|${loaded.run.id}|${loaded.version}|${spec.name}|${split}|${baseKey(opts)}`,
          () => reportBase(d, opts),
        );
        return itemReport(d, split, opts, base);
      } catch (err) {
        if (err instanceof TooLargeError) throw new ApiError(400, "too_large", err.message);
        throw err;
      }
    });
  }

  /** The key a report is stored under beside its run. */
  private reportStoreKey(item: string, split: SplitChoice, q: ReportQuery): string {
    return `report:${REPORT_VERSION}:${item}|${split}|${reportKey(q)}`;
  }

  /**
   * A cached computation of one run, also stored beside the run once it is settled, so it survives a restart.
   * The payload is returned as JSON reads it back, so a stored and a fresh answer are the same.
   */
  stored<T>(loaded: LoadedRun, key: string, compute: () => Promise<T>): Promise<T> {
    const { run, version, settled } = loaded;
    return this.cached(`${run.id}|${version}|${key}`, async () => {
      if (settled) {
        const bytes = await this.storage.getAnalysisCache(run.id, key, version);
        if (bytes) return JSON.parse(bytes.toString("utf8")) as T;
      }
      const text = JSON.stringify(await compute());
      if (settled) await this.storage.putAnalysisCache(run.id, key, version, Buffer.from(text, "utf8"));
      return JSON.parse(text) as T;
    });
  }

  /**
   * The run's headline: top-label accuracy and ECE over every item on its default split. Only that split's rows
   * are read (and not cached), so it is cheap when a run finishes: the reports read the whole run later.
   */
  async headline(runId: string): Promise<Headline> {
    const loaded = await this.run(runId);
    const splits = splitsOf(defaultSplit(loaded.run));
    const items = await this.convert(loaded, loaded.specs, splits ? { split: splits } : {});
    return headlineOf(loaded.specs.map((spec) => topView(items.get(spec.name) as ItemData)));
  }

  /** A cached computation keyed by `key` (which must include the run versions). */
  cached<T>(key: string, compute: () => Promise<T> | T): Promise<T> {
    let p = this.payloads.get(key) as Promise<T> | undefined;
    if (!p) {
      p = Promise.resolve().then(compute);
      p.catch(() => this.payloads.delete(key));
      this.payloads.set(key, p);
    }
    return p;
  }
}

/** The split a report shows by default: test when the run has it, else all rows. */
export function defaultSplit(run: RunRow): SplitChoice {
  return run.splits.includes("test") ? "test" : "all";
}

const shared = new WeakMap<Storage, AnalysisData>();

/** The analysis data (and caches) of a storage: one per storage, shared by the routes and warmReports. */
export function analysisData(storage: Storage): AnalysisData {
  let d = shared.get(storage);
  if (!d) {
    d = new AnalysisData(storage);
    shared.set(storage, d);
  }
  return d;
}

/**
 * Computes and caches the default report of every item of a run (default split and options), so the first view
 * after a run finishes is served from memory. Resolves when done, or after the item under way once `stopped()`;
 * errors are the caller's to log. `keepItems: false` drops the run's item data from memory afterwards (they stay
 * stored beside a settled run), so preparing several runs does not fill the memory.
 */
export async function warmReports(
  storage: Storage,
  runId: string,
  opts: { stopped?: () => boolean; keepItems?: boolean } = {},
): Promise<void> {
  const data = analysisData(storage);
  const loaded = await data.run(runId);
  try {
    for (const spec of loaded.specs) {
      if (opts.stopped?.()) return;
      await data.report(loaded, { item: spec.name });
    }
  } finally {
    if (opts.keepItems === false) data.forgetItems(runId);
  }
}
