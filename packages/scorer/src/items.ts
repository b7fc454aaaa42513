import { NOT_STATED } from "./constants.js";
import { ValueError } from "./errors.js";
import type { Item, ItemKind } from "./types.js";

/** An option with its description resolved (null when it has none). */
export interface NormalOption {
  name: string;
  description: string | null;
}

/** An item checked and put in one shape: options are the item's choices in order (yes, no for yes/no). */
export interface NormalItem {
  name: string;
  kind: ItemKind;
  question: string;
  options: NormalOption[];
  notStated: boolean;
}

const KINDS: readonly string[] = ["choice", "yesno", "score", "multi"];
const cache = new WeakMap<Item, NormalItem>();

/** Checks an item and returns its normal shape; anything the API cannot represent is a ValueError. */
export function normalizeItem(item: Item): NormalItem {
  const known = typeof item === "object" && item !== null ? cache.get(item) : undefined;
  if (known) return known;
  if (typeof item !== "object" || item === null) {
    throw new ValueError(
      `an item must be an object {name, kind, question, options | levels}, got ${typeof item}`,
    );
  }
  const raw = item as unknown as Record<string, unknown>;
  const label = typeof raw.name === "string" && raw.name !== "" ? `item '${raw.name}'` : "an item";
  if (raw.kind === "span" || raw.kind === "spans" || raw.evidence === true || raw.spans === true) {
    throw new ValueError(
      `${label} asks for spans or evidence quotes, which have no representation in the decision API; ask a choice, yesno, score or multi question instead`,
    );
  }
  if (typeof raw.name !== "string" || raw.name === "") {
    throw new ValueError("an item needs a non-empty string `name`");
  }
  if (typeof raw.kind !== "string" || !KINDS.includes(raw.kind)) {
    throw new ValueError(
      `${label} has kind ${JSON.stringify(raw.kind)}; expected one of ${KINDS.join(", ")}`,
    );
  }
  if (typeof raw.question !== "string" || raw.question.trim() === "") {
    throw new ValueError(`${label} needs a non-empty string \`question\``);
  }
  if (raw.notStated !== undefined && typeof raw.notStated !== "boolean") {
    throw new ValueError(`${label}: notStated must be true or false, got ${JSON.stringify(raw.notStated)}`);
  }
  const kind = raw.kind as ItemKind;
  const options = optionsOf(kind, raw, label);
  const normal: NormalItem = {
    name: raw.name,
    kind,
    question: raw.question,
    options,
    notStated: raw.notStated === true,
  };
  cache.set(item, normal);
  return normal;
}

function optionsOf(kind: ItemKind, raw: Record<string, unknown>, label: string): NormalOption[] {
  const field = kind === "score" ? "levels" : "options";
  const list = raw[field];
  if (kind === "yesno") {
    if (list === undefined) return [option("yes"), option("no")];
    const given = readOptions(list, label, field);
    const names = given.map((o) => o.name);
    if (names.length !== 2 || !names.includes("yes") || !names.includes("no")) {
      throw new ValueError(
        `${label} is a yes/no question; its options may only describe "yes" and "no", got ${JSON.stringify(names)}`,
      );
    }
    return [given.find((o) => o.name === "yes")!, given.find((o) => o.name === "no")!];
  }
  if (list === undefined) {
    throw new ValueError(
      `${label} is a ${kind} question and needs \`${field}\` (a list of names or {name, description})`,
    );
  }
  const options = readOptions(list, label, field);
  const least = kind === "multi" ? 1 : 2;
  if (options.length < least) {
    throw new ValueError(`${label} needs at least ${least} ${field}, got ${options.length}`);
  }
  if (options.length > 255) {
    throw new ValueError(`${label} has ${options.length} ${field}; a choice carries at most 255`);
  }
  return options;
}

function readOptions(list: unknown, label: string, field: string): NormalOption[] {
  if (!Array.isArray(list)) {
    throw new ValueError(`${label}: \`${field}\` must be a list of names or {name, description}`);
  }
  const seen = new Set<string>();
  return list.map((entry, index) => {
    const normal = readOption(entry, `${label}, ${field}[${index}]`);
    if (normal.name === NOT_STATED) {
      throw new ValueError(
        `${label}, ${field}[${index}]: "${NOT_STATED}" is reserved; set notStated: true on the item instead`,
      );
    }
    if (seen.has(normal.name)) throw new ValueError(`${label}: option "${normal.name}" appears twice`);
    seen.add(normal.name);
    return normal;
  });
}

function readOption(entry: unknown, where: string): NormalOption {
  if (typeof entry === "string") {
    if (entry === "") throw new ValueError(`${where}: an option name cannot be empty`);
    return option(entry);
  }
  if (typeof entry === "object" && entry !== null) {
    const { name, description } = entry as { name?: unknown; description?: unknown };
    if (typeof name !== "string" || name === "") {
      throw new ValueError(`${where}: an option needs a non-empty string \`name\``);
    }
    if (description !== undefined && description !== null && typeof description !== "string") {
      throw new ValueError(`${where}: \`description\` must be a string, got ${typeof description}`);
    }
    return option(name, description || null);
  }
  throw new ValueError(
    `${where}: an option is a string or {name, description}, got ${JSON.stringify(entry)}`,
  );
}

function option(name: string, description: string | null = null): NormalOption {
  return { name, description };
}

/** The names of the probabilities a decision reports, in logit order (`not stated` last when allowed). */
export function outcomeNames(item: NormalItem): string[] {
  const names = item.options.map((o) => o.name);
  if (item.notStated) names.push(NOT_STATED);
  return names;
}
