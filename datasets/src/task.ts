import type { ValidationError } from "./format/errors.js";
import { JsonSyntaxError, parseLocated } from "./format/json-located.js";
import { describeType, didYouMean, quoteList } from "./format/suggest.js";
import type { Item, Option, Task } from "./types.js";
import { NOT_STATED } from "./types.js";

/** The name of an option or level. */
export function optionName(o: Option): string {
  return typeof o === "string" ? o : o.name;
}

/** The yes/no options used when a yesno item gives none. */
const DEFAULT_YESNO: readonly Option[] = [
  { name: "yes", description: "Yes: the statement in the question holds for this input." },
  { name: "no", description: "No: the statement in the question does not hold for this input." },
];

/** The option (or level) names an item's label may take, without "not stated". */
export function itemOptionNames(item: Item): string[] {
  if (item.kind === "yesno") return (item.options ?? DEFAULT_YESNO).map(optionName);
  if (item.kind === "score") return (item.levels ?? []).map(optionName);
  return (item.options ?? []).map(optionName);
}

const TASK_FIELDS = ["name", "description", "provenance", "items"];
const PROVENANCE_FIELDS = ["source", "package", "licence", "labels"];
const ITEM_FIELDS = ["name", "kind", "question", "options", "levels", "notStated"];
const KINDS = ["choice", "yesno", "score", "multi"];
const MAX_OPTIONS = 255;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkOptions(
  list: unknown,
  at: string,
  min: number,
  errs: (field: string, text: string) => void,
): void {
  if (!Array.isArray(list)) {
    errs(
      at,
      `must be a list of options (names, or {"name", "description"} objects), not ${describeType(list)}`,
    );
    return;
  }
  if (list.length < min) errs(at, `needs at least ${min} entries, has ${list.length}`);
  if (list.length > MAX_OPTIONS)
    errs(at, `has ${list.length} entries; decision services accept at most ${MAX_OPTIONS}`);
  const seen = new Set<string>();
  list.forEach((o, j) => {
    const f = `${at}[${j}]`;
    let name: unknown = o;
    if (isObject(o)) {
      for (const k of Object.keys(o))
        if (k !== "name" && k !== "description")
          errs(
            `${f}.${k}`,
            `unknown field "${k}"${didYouMean(k, ["name", "description"])}; an option has "name" and "description"`,
          );
      name = o.name;
      if (o.description !== undefined && typeof o.description !== "string")
        errs(`${f}.description`, `must be a string, not ${describeType(o.description)}`);
    }
    if (typeof name !== "string" || name.trim() === "") {
      errs(f, `an option needs a non-empty name, got ${describeType(name)}`);
      return;
    }
    if (name === NOT_STATED)
      errs(f, `"${NOT_STATED}" is reserved; set "notStated": true on the item instead`);
    if (seen.has(name)) errs(f, `option "${name}" appears twice; option names must be unique`);
    seen.add(name);
  });
}

/** Check a task definition (parsed JSON): every problem with its field path. */
export function validateTask(value: unknown): ValidationError[] {
  const out: ValidationError[] = [];
  const errs = (field: string, text: string) =>
    out.push({ code: "invalid-task", field, message: `task${field ? ` ${field}` : ""}: ${text}` });
  if (!isObject(value)) {
    errs(
      "",
      `must be an object with "name", "description", "provenance" and "items", not ${describeType(value)}`,
    );
    return out;
  }
  for (const k of Object.keys(value))
    if (!TASK_FIELDS.includes(k))
      errs(k, `unknown field "${k}"${didYouMean(k, TASK_FIELDS)}; a task has ${quoteList(TASK_FIELDS)}`);
  if (typeof value.name !== "string" || value.name.trim() === "") errs("name", "must be a non-empty string");
  if (typeof value.description !== "string") errs("description", "must be a string");
  const prov = value.provenance;
  if (!isObject(prov)) errs("provenance", `must be an object with ${quoteList(PROVENANCE_FIELDS)} (strings)`);
  else
    for (const k of PROVENANCE_FIELDS)
      if (typeof prov[k] !== "string")
        errs(`provenance.${k}`, `must be a string, not ${describeType(prov[k])}`);
  const items = value.items;
  if (!Array.isArray(items) || items.length === 0) {
    errs("items", "must be a non-empty list of items");
    return out;
  }
  const names = new Set<string>();
  items.forEach((it, i) => {
    const at = `items[${i}]`;
    if (!isObject(it)) {
      errs(at, `must be an object with "name", "kind", "question", not ${describeType(it)}`);
      return;
    }
    for (const k of Object.keys(it))
      if (!ITEM_FIELDS.includes(k))
        errs(
          `${at}.${k}`,
          `unknown field "${k}"${didYouMean(k, ITEM_FIELDS)}; an item has ${quoteList(ITEM_FIELDS)}`,
        );
    if (typeof it.name !== "string" || it.name.trim() === "")
      errs(`${at}.name`, "must be a non-empty string");
    else if (names.has(it.name))
      errs(`${at}.name`, `item "${it.name}" appears twice; item names must be unique`);
    else names.add(it.name);
    if (typeof it.question !== "string" || it.question.trim() === "")
      errs(`${at}.question`, "must be a non-empty string");
    if (it.notStated !== undefined && typeof it.notStated !== "boolean")
      errs(`${at}.notStated`, "must be true or false");
    const kind = it.kind;
    if (typeof kind !== "string" || !KINDS.includes(kind)) {
      errs(
        `${at}.kind`,
        `must be one of ${quoteList(KINDS)}${typeof kind === "string" ? didYouMean(kind, KINDS) : ""}, not ${describeType(kind)}`,
      );
      return;
    }
    if (kind === "score") {
      checkOptions(it.levels, `${at}.levels`, 2, errs);
      if (it.options !== undefined)
        errs(`${at}.options`, 'a score item has "levels" (lowest to highest), not "options"');
      return;
    }
    if (it.levels !== undefined)
      errs(`${at}.levels`, `only score items have "levels"; a ${kind} item has "options"`);
    if (kind === "yesno") {
      if (it.options === undefined) return;
      checkOptions(it.options, `${at}.options`, 2, errs);
      const got = Array.isArray(it.options) ? it.options.map((o) => (isObject(o) ? o.name : o)) : [];
      if (got.length !== 2 || got[0] !== "yes" || got[1] !== "no")
        errs(
          `${at}.options`,
          'a yesno item\'s options must be "yes" then "no" (with descriptions); leave them out for defaults',
        );
      return;
    }
    checkOptions(it.options, `${at}.options`, kind === "choice" ? 2 : 1, errs);
  });
  return out;
}

/** Parse a task definition (the parsed JSON of a tasks/<name>.json file). */
export function parseTask(
  value: unknown,
): { ok: true; task: Task } | { ok: false; errors: ValidationError[]; message: string } {
  const errors = validateTask(value);
  if (errors.length > 0) return { ok: false, errors, message: errors.map((e) => e.message).join("\n") };
  return { ok: true, task: value as Task };
}

/** Parse the text of a task definition file: JSON syntax errors located by line and column, then validateTask. */
export function parseTaskJson(
  text: string,
): { ok: true; task: Task } | { ok: false; errors: ValidationError[]; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    let offset = 0;
    let detail = "not valid JSON";
    try {
      parseLocated(text.replace(/^\uFEFF/, ""));
    } catch (e) {
      if (e instanceof JsonSyntaxError) {
        offset = e.offset;
        detail = `not valid JSON: ${e.message}`;
      }
    }
    const before = text.replace(/^\uFEFF/, "").slice(0, offset);
    const line = before.split("\n").length;
    const column = offset - before.lastIndexOf("\n");
    const message = `line ${line}, column ${column}: ${detail}`;
    return { ok: false, errors: [{ code: "invalid-json", line, column, message }], message };
  }
  return parseTask(value);
}
