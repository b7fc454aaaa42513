import { NOT_STATED } from "@decision-workbench/datasets";
import type { ItemsFilter } from "../shapes/reports.js";
import { ESCALATED, type ItemData, UNKNOWN } from "./matrix.js";
import { topView } from "./views.js";

/** Per row: 1 right, 0 wrong, -1 not measured (escalated, no output or no gold). */
export function correctness(d: ItemData): Int8Array {
  const out = new Int8Array(d.status.length).fill(-1);
  const top = topView(d);
  for (let u = 0; u < d.m; u++) out[d.rowOf[u]] = top.y[u];
  return out;
}

function hasLabel(gold: string | string[] | null, label: string): boolean {
  if (Array.isArray(gold)) return label === NOT_STATED ? false : gold.includes(label);
  return gold === label;
}

/**
 * The rows (indices into d) the items endpoint shows, in run order, or for `confident-wrong` the wrong rows by
 * confidence, highest first; `label` keeps rows whose gold is (or, multi-label, includes) that label.
 */
export function selectRows(
  d: ItemData,
  opts: { filter: ItemsFilter; label?: string; correct?: Int8Array },
): number[] {
  const correct =
    opts.filter === "wrong" || opts.filter === "confident-wrong" ? (opts.correct ?? correctness(d)) : null;
  const out: number[] = [];
  for (let i = 0; i < d.status.length; i++) {
    if (opts.label !== undefined && !hasLabel(d.golds[i], opts.label)) continue;
    switch (opts.filter) {
      case "wrong":
      case "confident-wrong":
        if (correct![i] !== 0) continue;
        break;
      case "unknown":
        if (d.status[i] !== UNKNOWN) continue;
        break;
      case "escalated":
        if (d.status[i] !== ESCALATED) continue;
        break;
      default:
        break;
    }
    out.push(i);
  }
  if (opts.filter === "confident-wrong") {
    out.sort((a, b) => d.confidence[b] - d.confidence[a] || a - b);
  }
  return out;
}
