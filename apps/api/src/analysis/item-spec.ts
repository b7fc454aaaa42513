import { itemOptionNames, NOT_STATED, type Task } from "@decision-workbench/datasets";
import type { ItemSpec } from "../shapes/datasets.js";
import type { AnalysisRow } from "../storage/types.js";

/** Storage imports the spec from here. */
export type { ItemSpec };

/** The specs of every item of a task, in task order. */
export function taskSpecs(task: Task): ItemSpec[] {
  return task.items.map((item) => ({
    name: item.name,
    kind: item.kind,
    options: itemOptionNames(item),
    notStated: item.notStated === true,
  }));
}

/**
 * An item's spec read from its stored rows when the task is not at hand (probability keys are the options in item
 * order, then `not stated`). Multi-label when a gold or answer is a list, or when the probabilities do not sum to 1.
 */
export function inferSpec(
  name: string,
  rows: readonly Pick<AnalysisRow, "gold" | "answer" | "probabilities">[],
): ItemSpec {
  let keys: string[] | null = null;
  let multi = false;
  for (const r of rows) {
    if (Array.isArray(r.gold) || Array.isArray(r.answer)) multi = true;
    if (keys === null && r.probabilities) {
      keys = Object.keys(r.probabilities);
      let sum = 0;
      for (const k of keys) sum += r.probabilities[k];
      if (Math.abs(sum - 1) > 1e-6) multi = true;
    }
    if (multi && keys !== null) break;
  }
  const all = keys ?? [];
  const notStated = all.includes(NOT_STATED);
  const options = all.filter((k) => k !== NOT_STATED);
  const kind = multi ? "multi" : options.length === 2 && options[0] === "yes" ? "yesno" : "choice";
  return { name, kind, options, notStated };
}

/** The rows of a run grouped by item, in first-seen order. */
export function groupByItem<R extends AnalysisRow>(rows: readonly R[]): Map<string, R[]> {
  const out = new Map<string, R[]>();
  for (const r of rows) {
    let list = out.get(r.item);
    if (!list) {
      list = [];
      out.set(r.item, list);
    }
    list.push(r);
  }
  return out;
}
