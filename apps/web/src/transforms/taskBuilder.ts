/**
 * The upload's task builder: the form's values, the task JSON they make (the API's `Task`, checked as the API
 * checks it, with every problem placed on its field), the values read back from a task JSON, and example files
 * (JSONL and CSV) made from a task to fill in.
 */

import type { Task } from "@decision-workbench/api/shapes";
import { placeless, sentence, uploadErrorSummary, type ValidationError, validationErrors } from "./datasets";

type Item = Task["items"][number];
type Option = NonNullable<Item["options"]>[number];

/** The kinds of question an item can ask, in the API's words. */
export const ITEM_KINDS = ["choice", "yesno", "score", "multi"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** What each kind is called in the form. */
export const KIND_TEXT: Record<ItemKind, string> = {
  choice: "Choice: one of the options",
  yesno: "Yes or no",
  score: "Score: one of ordered levels",
  multi: "Multi-label: any of the options",
};

/** One item (a question about each example) as the form holds it; options are one a line. */
export interface BuilderItem {
  name: string;
  question: string;
  kind: ItemKind;
  /** One option (levels, for a score) a line, "name" or "name: description". */
  options: string;
  notStated: boolean;
}

/** The builder's values: the dataset's name, description and provenance, and its items. */
export interface BuilderValues {
  name: string;
  description: string;
  source: string;
  licence: string;
  labels: string;
  package: string;
  items: BuilderItem[];
}

/** A new item: a choice with no options yet. */
export function emptyItem(): BuilderItem {
  return { name: "", question: "", kind: "choice", options: "", notStated: false };
}

/** The empty builder: one item. */
export function emptyBuilder(): BuilderValues {
  return {
    name: "",
    description: "",
    source: "",
    licence: "",
    labels: "",
    package: "",
    items: [emptyItem()],
  };
}

/** Dataset names: they appear in links (the API's rule). */
const DATASET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The most options a decision service accepts for one item. */
const MAX_OPTIONS = 255;
/** Column names a CSV file gives to other things than items. */
const CSV_NAMES = new Set(["id", "state", "split"]);

/** The field keys the builder's errors are placed on: "name", "source", "items.0.options", … */
export type BuilderErrors = Record<string, string>;

/** The key of an item's field. */
export function itemKey(index: number, field: keyof BuilderItem): string {
  return `items.${index}.${field}`;
}

/** The option lines of an item: trimmed, blank lines left out; "name: description" split at the first ": ". */
export function optionLines(text: string): Option[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((l) => {
      const at = l.indexOf(": ");
      if (at <= 0) return l;
      const description = l.slice(at + 2).trim();
      return description ? { name: l.slice(0, at).trim(), description } : l.slice(0, at).trim();
    });
}

function optionName(o: Option): string {
  return typeof o === "string" ? o : o.name;
}

function itemProblems(it: BuilderItem, i: number, names: Set<string>, errors: BuilderErrors): void {
  const name = it.name.trim();
  if (!name) errors[itemKey(i, "name")] = "Give the item a name; it names the label column.";
  else if (names.has(name))
    errors[itemKey(i, "name")] = `Another item is named "${name}"; names must differ.`;
  else if (CSV_NAMES.has(name) || name.startsWith("state.") || name.startsWith("meta."))
    errors[itemKey(i, "name")] =
      `"${name}" is a column of the examples file itself; give the item another name.`;
  names.add(name);
  if (!it.question.trim())
    errors[itemKey(i, "question")] = "Write the question the service answers about each example.";
  const options = optionLines(it.options);
  const list = options.map(optionName);
  const what = it.kind === "score" ? "levels" : "options";
  const twice = list.find((n, j) => list.indexOf(n) !== j);
  let problem: string | undefined;
  if (it.kind === "yesno") {
    if (list.length > 0 && (list.length !== 2 || list[0] !== "yes" || list[1] !== "no"))
      problem = 'A yes-or-no item\'s options are "yes" then "no"; leave them empty or only add descriptions.';
  } else if (list.length < (it.kind === "multi" ? 1 : 2)) {
    problem =
      it.kind === "multi"
        ? "Give at least one option, one a line."
        : `Give at least two ${what}, one a line${it.kind === "score" ? ", lowest first" : ""}.`;
  } else if (list.length > MAX_OPTIONS)
    problem = `There are ${list.length} ${what}; decision services accept at most ${MAX_OPTIONS}.`;
  if (!problem && list.some((n) => n.toLowerCase() === "not stated"))
    problem = 'Leave "not stated" out of the list and tick "The answer may be not stated" instead.';
  if (!problem && twice !== undefined) problem = `"${twice}" is listed twice; list each once.`;
  if (problem) errors[itemKey(i, "options")] = problem;
}

/** The task the values make (the API's shape), or every problem placed on its field. */
export function buildTask(v: BuilderValues): { ok: true; task: Task } | { ok: false; errors: BuilderErrors } {
  const errors: BuilderErrors = {};
  const name = v.name.trim();
  if (!name) errors.name = "Give the dataset a name.";
  else if (!DATASET_NAME.test(name))
    errors.name =
      'Use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit (the name appears in links).';
  if (!v.source.trim()) errors.source = "Say where the examples come from.";
  if (!v.licence.trim()) errors.licence = "Give the licence the examples are under.";
  if (v.items.length === 0) errors.items = "Add at least one item.";
  const names = new Set<string>();
  v.items.forEach((it, i) => {
    itemProblems(it, i, names, errors);
  });
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, task: taskOf(v) };
}

/** The task JSON the values make, as far as they go (also when they are not complete yet). */
export function taskOf(v: BuilderValues): Task {
  return {
    name: v.name.trim(),
    description: v.description.trim(),
    provenance: {
      source: v.source.trim(),
      package: v.package.trim(),
      licence: v.licence.trim(),
      labels: v.labels.trim(),
    },
    items: v.items.map((it) => {
      const options = optionLines(it.options);
      const item: Item = { name: it.name.trim(), kind: it.kind, question: it.question.trim() };
      if (it.kind === "score") item.levels = options;
      else if (it.kind !== "yesno" || options.length > 0) item.options = options;
      if (it.notStated) item.notStated = true;
      return item;
    }),
  };
}

function optionText(o: Option): string {
  return typeof o === "string" ? o : o.description ? `${o.name}: ${o.description}` : o.name;
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

const TASK_FIELDS = ["name", "description", "provenance", "items"];
const PROVENANCE_FIELDS = ["source", "package", "licence", "labels"];
const ITEM_FIELDS = ["name", "kind", "question", "options", "levels", "notStated"];

/** What is wrong when an object has a field other than `known` (the API refuses it; the form would lose it). */
function unknownField(value: unknown, known: string[], what: string): string | undefined {
  if (!value || typeof value !== "object") return undefined;
  const extra = Object.keys(value).find((k) => !known.includes(k));
  return extra === undefined
    ? undefined
    : `${what} has no field "${extra}"; its fields are ${known.map((k) => `"${k}"`).join(", ")}.`;
}

/** The builder's values read from a task JSON text, or what keeps it from being read. */
export function builderFromJson(
  json: string,
): { ok: true; values: BuilderValues } | { ok: false; error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `This is not JSON yet: ${(e as Error).message}.` };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    return { ok: false, error: "A task is a JSON object with name, description, provenance and items." };
  const t = parsed as Record<string, unknown>;
  const prov = (t.provenance && typeof t.provenance === "object" ? t.provenance : {}) as Record<
    string,
    unknown
  >;
  if (!Array.isArray(t.items)) return { ok: false, error: "The task needs a list of items." };
  const unknown =
    unknownField(t, TASK_FIELDS, "A task") ??
    unknownField(prov, PROVENANCE_FIELDS, "The provenance") ??
    t.items.map((raw) => unknownField(raw, ITEM_FIELDS, "An item")).find((e) => e !== undefined);
  if (unknown) return { ok: false, error: unknown };
  const items: BuilderItem[] = [];
  for (const raw of t.items) {
    const it = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    const kind = ITEM_KINDS.find((k) => k === it.kind);
    if (!kind)
      return {
        ok: false,
        error: `An item's kind must be one of ${ITEM_KINDS.map((k) => `"${k}"`).join(", ")}; "${String(it.kind)}" is not.`,
      };
    const list = kind === "score" ? it.levels : it.options;
    items.push({
      name: text(it.name),
      question: text(it.question),
      kind,
      options: Array.isArray(list) ? (list as Option[]).map(optionText).join("\n") : "",
      notStated: it.notStated === true,
    });
  }
  return {
    ok: true,
    values: {
      name: text(t.name),
      description: text(t.description),
      source: text(prov.source),
      licence: text(prov.licence),
      labels: text(prov.labels),
      package: text(prov.package),
      items,
    },
  };
}

/** How many example lines a template has. */
const TEMPLATE_EXAMPLES = 3;

/** Example i's label of an item: its options in turn (a one-option list for multi-label). */
function templateLabel(item: Item, i: number): string | string[] {
  const names = (item.kind === "score" ? (item.levels ?? []) : (item.options ?? [])).map(optionName);
  const list = item.kind === "yesno" && names.length === 0 ? ["yes", "no"] : names;
  const one = list.length > 0 ? list[i % list.length] : "";
  return item.kind === "multi" ? (one ? [one] : []) : one;
}

function templateState(i: number): string {
  return `Replace this with the text the service reads for example ${i + 1}.`;
}

/** A JSONL file to fill in: one example a line, each item labelled with its options in turn. */
export function jsonlTemplate(task: Task): string {
  const lines: string[] = [];
  for (let i = 0; i < TEMPLATE_EXAMPLES; i++) {
    const labels = Object.fromEntries(task.items.map((it) => [it.name, templateLabel(it, i)]));
    lines.push(JSON.stringify({ id: `example-${i + 1}`, state: templateState(i), labels }));
  }
  return `${lines.join("\n")}\n`;
}

/** A CSV cell, quoted when it holds a comma, a quote, a line break or leading / trailing spaces. */
function csvCell(s: string): string {
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** A CSV file to fill in: a header row (id, state, one column an item), then one example a row. */
export function csvTemplate(task: Task): string {
  const rows = [["id", "state", ...task.items.map((it) => it.name)]];
  for (let i = 0; i < TEMPLATE_EXAMPLES; i++) {
    const labels = task.items.map((it) => {
      const l = templateLabel(it, i);
      return Array.isArray(l) ? l.join("|") : l;
    });
    rows.push([`example-${i + 1}`, templateState(i), ...labels]);
  }
  return `${rows.map((r) => r.map(csvCell).join(",")).join("\n")}\n`;
}

/** The builder field a task field of the API's errors is about (`items[1].levels` → `items.1.options`). */
export function builderKeyOf(field: string): string | undefined {
  if (field === "name" || field === "description" || field === "items") return field;
  const p = /^provenance(?:\.(source|licence|labels|package))?$/.exec(field);
  if (p) return p[1] ?? "source";
  const m = /^items\[(\d+)\](?:\.(\w+))?/.exec(field);
  if (!m) return undefined;
  const i = Number(m[1]);
  const f = m[2];
  if (f === "name" || f === "question" || f === "kind" || f === "notStated") return itemKey(i, f);
  if (f === "options" || f === "levels") return itemKey(i, "options");
  return f === undefined ? itemKey(i, "name") : undefined;
}

/** An upload's refusal as the form shows it: problems of the task on their fields, the rest in a list. */
export interface PlacedUploadError {
  /** What the alert above the list says: how many problems, that nothing was stored, where they are shown. */
  summary: string;
  fields: BuilderErrors;
  listed: ValidationError[];
}

/** Nothing is placed: the refusal is not about the task or the examples (shown as the API said it). */
const NOT_PLACED = "";

const ON_FIELD = "The dataset was not uploaded; the problem is marked on its field.";

/**
 * Places the API's refusal of an upload: a task's problems (400 invalid_task, a refused name, 409 for a name
 * in use) on the builder's fields, each once and as a sentence; the examples' problems (by line) in the list.
 * Any other refusal has an empty summary: it is shown as the API said it.
 */
export function placeUploadError(
  error: { code: string; message: string; details: unknown[] },
  values: BuilderValues,
): PlacedUploadError {
  const fields: BuilderErrors = {};
  const listed: ValidationError[] = [];
  const name = values.name.trim();
  if (error.code === "dataset_exists") {
    fields.name = /bundled/.test(error.message)
      ? `"${name}" is the name of a bundled dataset; give yours another name.`
      : /in progress/.test(error.message)
        ? `A dataset named "${name}" is being uploaded right now; give yours another name, or wait until it is listed.`
        : `A dataset named "${name}" is already uploaded; give yours another name, or delete that one first.`;
    return { summary: ON_FIELD, fields, listed };
  }
  if (error.code === "invalid_request" && /^task\.name\b/.test(error.message)) {
    fields.name = 'Use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit.';
    return { summary: ON_FIELD, fields, listed };
  }
  const details = validationErrors(error.details);
  if (error.code === "invalid_task" && details.length === 0) {
    // the scorer's check names the item: task item "q": <what is wrong>
    const m = /^task item "(.*?)": ([\s\S]*)$/.exec(error.message);
    const i = m ? values.items.findIndex((it) => it.name.trim() === m[1]) : -1;
    if (m && i >= 0) fields[itemKey(i, "options")] = sentence(m[2]);
    else listed.push({ message: error.message });
    return {
      summary: `${uploadErrorSummary(error, 1)}${m && i >= 0 ? " It is marked on its field." : ""}`,
      fields,
      listed,
    };
  }
  for (const d of details) {
    const key = error.code === "invalid_task" && d.field !== undefined ? builderKeyOf(d.field) : undefined;
    if (key && !fields[key]) fields[key] = placeless(d.message);
    else if (key) fields[key] = `${fields[key]} ${placeless(d.message)}`;
    else listed.push(d);
  }
  if (error.code !== "invalid_task" && error.code !== "invalid_dataset")
    return { summary: NOT_PLACED, fields: {}, listed: [] };
  const onFields = Object.keys(fields).length > 0;
  const summary = uploadErrorSummary(error, error.code === "invalid_task" ? details.length : listed.length);
  return {
    summary: `${summary}${onFields ? " Each problem of the task is marked on its field." : ""}`,
    fields,
    listed,
  };
}
