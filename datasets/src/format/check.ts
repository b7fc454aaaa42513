import { splitOf } from "../split.js";
import { itemOptionNames } from "../task.js";
import type { Example, Item, Split, Task } from "../types.js";
import { NOT_STATED, SPLITS } from "../types.js";
import type { Issue } from "./errors.js";
import { describeType, didYouMean, quoteList } from "./suggest.js";

/** The fields an example may have. */
const EXAMPLE_FIELDS = ["id", "state", "labels", "meta", "split"] as const;

/** What the checks need to know about a task, computed once per file. */
export interface TaskIndex {
  items: Map<string, { item: Item; options: string[] }>;
  names: string[];
}

/** Index a task's items by name with their allowed option names. */
export function indexTask(task: Task): TaskIndex {
  const items = new Map<string, { item: Item; options: string[] }>();
  for (const item of task.items) items.set(item.name, { item, options: itemOptionNames(item) });
  return { items, names: task.items.map((i) => i.name) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function expected(item: Item, options: string[]): string {
  const all = item.notStated ? [...options, NOT_STATED] : options;
  return `expected one of ${quoteList(all)}`;
}

function checkLabel(
  name: string,
  value: unknown,
  entry: { item: Item; options: string[] },
  issues: Issue[],
): void {
  const { item, options } = entry;
  const field = `labels.${name}`;
  const allowed = item.notStated ? [...options, NOT_STATED] : options;
  if (item.kind === "multi") {
    if (value === NOT_STATED && item.notStated) return;
    if (!Array.isArray(value)) {
      const hint =
        typeof value === "string"
          ? options.includes(value)
            ? `; write [${JSON.stringify(value)}]`
            : value.includes("|") || value.includes(",")
              ? `; write a list like ${JSON.stringify(value.split(/[|,]/).map((s) => s.trim()))}`
              : ""
          : "";
      const ns = item.notStated ? ` or "${NOT_STATED}"` : "";
      issues.push({
        code: "multi-not-list",
        field,
        text: `${name} is a multi-label item: its label must be a list of option names (e.g. [${options
          .slice(0, 2)
          .map((o) => JSON.stringify(o))
          .join(", ")}], or [] when none apply)${ns}, not ${describeType(value)}${hint}`,
      });
      return;
    }
    const seen = new Set<string>();
    value.forEach((v, j) => {
      const f = `${field}[${j}]`;
      if (typeof v !== "string") {
        issues.push({
          code: "invalid-label",
          field: f,
          text: `an option name must be a string, not ${describeType(v)}`,
        });
      } else if (v === NOT_STATED) {
        issues.push({
          code: "invalid-label",
          field: f,
          text: item.notStated
            ? `"${NOT_STATED}" is not an option; give the whole label as the string "${NOT_STATED}" instead of a list`
            : `"${NOT_STATED}" is not allowed for ${name} (the item does not set notStated); ${expected(item, options)}`,
        });
      } else if (!options.includes(v)) {
        issues.push({
          code: "label-not-option",
          field: f,
          text: `"${v}" is not an option of ${name}; ${expected({ ...item, notStated: false }, options)}${didYouMean(v, options)}`,
        });
      } else if (seen.has(v)) {
        issues.push({
          code: "invalid-label",
          field: f,
          text: `"${v}" is listed twice; list each option once`,
        });
      }
      if (typeof v === "string") seen.add(v);
    });
    return;
  }
  if (typeof value !== "string") {
    const hint =
      typeof value === "boolean" && item.kind === "yesno"
        ? `; write "${value ? "yes" : "no"}"`
        : Array.isArray(value)
          ? `; ${name} is a ${item.kind} item and takes a single option, not a list`
          : "";
    issues.push({
      code: "label-not-option",
      field,
      text: `the label of ${name} must be a string, ${expected(item, options)}; got ${describeType(value)}${hint}`,
    });
    return;
  }
  if (value === NOT_STATED && !item.notStated) {
    issues.push({
      code: "label-not-option",
      field,
      text: `"${NOT_STATED}" is not allowed for ${name}: the item does not set "notStated": true; ${expected(item, options)}`,
    });
    return;
  }
  if (!allowed.includes(value)) {
    const what = item.kind === "score" ? "a level" : "an option";
    issues.push({
      code: "label-not-option",
      field,
      text: `${JSON.stringify(value)} is not ${what} of ${name}; ${expected(item, options)}${didYouMean(value, allowed)}`,
    });
  }
}

function isEmptyState(state: unknown): boolean {
  if (typeof state === "string") return state.trim() === "";
  if (Array.isArray(state)) return state.length === 0;
  return isObject(state) && Object.keys(state).length === 0;
}

/**
 * Check one example (a parsed JSON value or a row built from CSV). Returns the issues, and the example with
 * its split filled in (explicit `split`, else splitOf(id)) when there are none.
 */
export function checkExample(
  value: unknown,
  index: TaskIndex,
): { example?: Example; id?: string; issues: Issue[] } {
  const issues: Issue[] = [];
  if (!isObject(value)) {
    issues.push({
      code: "not-an-object",
      field: "",
      text: `an example must be an object like {"id": "...", "state": ..., "labels": {...}}, not ${describeType(value)}`,
    });
    return { issues };
  }
  for (const k of Object.keys(value)) {
    if (!(EXAMPLE_FIELDS as readonly string[]).includes(k)) {
      issues.push({
        code: "unknown-field",
        field: k,
        atKey: true,
        text: `unknown field "${k}"${didYouMean(k, EXAMPLE_FIELDS)}; an example has ${quoteList(EXAMPLE_FIELDS)}`,
      });
    }
  }
  let id: string | undefined;
  if (value.id === undefined)
    issues.push({ code: "missing-id", field: "", text: `"id" is missing; every example needs a unique id` });
  else if (typeof value.id === "string" && value.id.trim() !== "") id = value.id;
  else if (typeof value.id === "number" && Number.isSafeInteger(value.id)) id = String(value.id);
  else
    issues.push({
      code: "invalid-id",
      field: "id",
      text: `"id" must be a non-empty string, not ${describeType(value.id)}`,
    });

  const state = value.state;
  if (state === undefined)
    issues.push({
      code: "missing-state",
      field: "",
      text: `"state" is missing; give the input the service reads: a string, an object (key order kept) or a list`,
    });
  else if (state === null || (typeof state !== "string" && typeof state !== "object"))
    issues.push({
      code: "invalid-state",
      field: "state",
      text: `"state" must be a string, an object (key order kept) or a list, not ${describeType(state)}`,
    });
  else if (isEmptyState(state))
    issues.push({
      code: "empty-state",
      field: "state",
      text: `"state" is empty (${JSON.stringify(state)}); give the text or the fields the service should read`,
    });

  const labels = value.labels;
  if (labels === undefined)
    issues.push({
      code: "missing-labels",
      field: "",
      text: `"labels" is missing; give an object like {"${index.names[0]}": ...}`,
    });
  else if (!isObject(labels))
    issues.push({
      code: "invalid-labels",
      field: "labels",
      text: `"labels" must be an object mapping item names to labels, like {"${index.names[0]}": ...}, not ${describeType(labels)}`,
    });
  else
    for (const [name, v] of Object.entries(labels)) {
      const entry = index.items.get(name);
      if (!entry) {
        issues.push({
          code: "unknown-item",
          field: `labels.${name}`,
          atKey: true,
          text: `unknown item "${name}"${didYouMean(name, index.names)}; the task's items are ${quoteList(index.names)}`,
        });
        continue;
      }
      checkLabel(name, v, entry, issues);
    }

  if (value.meta !== undefined && !isObject(value.meta))
    issues.push({
      code: "invalid-meta",
      field: "meta",
      text: `"meta" must be an object, not ${describeType(value.meta)}`,
    });

  let split: Split | undefined;
  if (value.split !== undefined) {
    if (typeof value.split === "string" && (SPLITS as readonly string[]).includes(value.split))
      split = value.split as Split;
    else
      issues.push({
        code: "invalid-split",
        field: "split",
        text: `"split" must be one of ${quoteList(SPLITS)}${
          typeof value.split === "string" ? didYouMean(value.split, SPLITS) : ""
        }, not ${describeType(value.split)}; leave it out to split by the hash of the id`,
      });
  }
  if (issues.length > 0 || id === undefined) return { id, issues };
  const example: Example = {
    id,
    state: state as Example["state"],
    labels: labels as Example["labels"],
    split: split ?? splitOf(id),
  };
  if (value.meta !== undefined) example.meta = value.meta as Record<string, unknown>;
  return { example, id, issues };
}
