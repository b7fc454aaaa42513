/** The URL holds every view's state (run tab, item, split, binning, bins, example, compared runs). */

import { BINS, SPLIT_CHOICES } from "@decision-workbench/api/limits";
import type { ItemsFilter, SplitChoice } from "@decision-workbench/api/shapes";

/** Tabs of a run. */
const RUN_TABS = ["reliability", "confidence", "thresholds", "unknowns", "confusion", "items"] as const;
/** One tab. */
export type RunTab = (typeof RUN_TABS)[number];
/** Filters of the items table, in the order the table offers them. */
export const ITEM_FILTERS: readonly ItemsFilter[] = [
  "confident-wrong",
  "wrong",
  "unknown",
  "escalated",
  "all",
];

/** A run view, as read from its search parameters. */
export interface RunView {
  tab: RunTab;
  item?: string;
  split?: SplitChoice;
  binning: "width" | "mass";
  bins: number;
  view: "top" | "classwise";
  /** Selected example of the items table. */
  example?: string;
  filter: ItemsFilter;
  label?: string;
  offset: number;
}

/** Defaults that are left out of links. */
export const RUN_VIEW_DEFAULTS: RunView = {
  tab: "reliability",
  binning: "width",
  bins: BINS.default,
  view: "top",
  filter: "confident-wrong",
  offset: 0,
};

function oneOf<T extends string, D extends T | undefined>(
  v: string | null,
  allowed: readonly T[],
  d: D,
): T | D {
  return v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : d;
}

/** A split named in a link, or undefined (the API's default) when it names none. */
export function readSplit(v: string | null): SplitChoice | undefined {
  return oneOf(v, SPLIT_CHOICES, undefined);
}

/** Reads a run view; unknown or out-of-range values fall back to the defaults (bins are clamped). */
export function readRunView(sp: URLSearchParams): RunView {
  const binsRaw = Number.parseInt(sp.get("bins") ?? "", 10);
  const offRaw = Number.parseInt(sp.get("offset") ?? "", 10);
  return {
    tab: oneOf(sp.get("tab"), RUN_TABS, RUN_VIEW_DEFAULTS.tab),
    item: sp.get("item") || undefined,
    split: readSplit(sp.get("split")),
    binning: oneOf(sp.get("binning"), ["width", "mass"] as const, "width"),
    bins: Number.isFinite(binsRaw) ? Math.min(BINS.max, Math.max(BINS.min, binsRaw)) : RUN_VIEW_DEFAULTS.bins,
    view: oneOf(sp.get("view"), ["top", "classwise"] as const, "top"),
    example: sp.get("example") || undefined,
    filter: oneOf(sp.get("filter"), ITEM_FILTERS, RUN_VIEW_DEFAULTS.filter),
    label: sp.get("label") || undefined,
    offset: Number.isFinite(offRaw) && offRaw > 0 ? offRaw : 0,
  };
}

/** Writes a patch over the current parameters; defaults and empty values are removed to keep links short. */
export function writeRunView(sp: URLSearchParams, patch: Partial<RunView>): URLSearchParams {
  const next = new URLSearchParams(sp);
  for (const [k, v] of Object.entries(patch)) {
    const d = (RUN_VIEW_DEFAULTS as unknown as Record<string, unknown>)[k];
    if (v === undefined || v === null || v === "" || v === d) next.delete(k);
    else next.set(k, String(v));
  }
  return next;
}

/** The compared run ids of `?runs=a,b`, deduplicated, order kept. */
export function readRunList(sp: URLSearchParams): string[] {
  const raw = sp.get("runs") ?? "";
  return [
    ...new Set(
      raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** Toggles one id in a run list. */
export function toggleRun(list: string[], id: string): string[] {
  return list.includes(id) ? list.filter((x) => x !== id) : [...list, id];
}
