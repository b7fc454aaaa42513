/**
 * The questions a checkpoint answers: one target per question the scorer builds from a dataset item, with
 * the key a request's question is matched on (its instructions and option names) and how a gold label
 * becomes a class.
 */

import { parseNoul } from "../models/noul-text.js";
import type { Question } from "../request/types.js";
import type { DatasetItem, DatasetOption } from "./dataset-types.js";

/** A question of a dataset item that a checkpoint learns to answer. */
export interface TargetSpec {
  /** Matching key (see `questionKey`). */
  key: string;
  /** Human-readable name: `<item>` or `<item>['<option>']` or `<item>[not stated]`. */
  label: string;
  /** Classes: a choice's option names in order, or ["yes", "no"] for a noul. */
  classes: string[];
  /** The class index of a gold label, or -1 when the example says nothing about this target. */
  classOf(label: string | string[] | undefined): number;
}

const NOT_STATED = "not stated";

function norm(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function optionName(o: DatasetOption): string {
  return typeof o === "string" ? o : o.name;
}

function choiceKey(instructions: string, names: readonly string[]): string {
  return `choice|${norm(instructions)}|${[...names].sort().join("\u0001")}`;
}

/** The key a request's question is looked up by, or null for questions no checkpoint can match. */
export function questionKey(q: Question): string {
  if (q.type !== "noul")
    return choiceKey(
      q.instructions,
      q.options.map((o) => o.name),
    );
  const ask = parseNoul(q.instructions);
  if (ask.kind === "option") return `option|${norm(ask.question)}|${norm(ask.name)}`;
  if (ask.kind === "not-stated") return `ns|${norm(ask.question)}`;
  return `noul|${norm(ask.question)}`;
}

/** The targets of one item, in the order the scorer asks them. */
export function targetsOf(item: DatasetItem): TargetSpec[] {
  const ns = item.notStated === true;
  if (item.kind === "choice" || item.kind === "score") {
    const names = (item.kind === "score" ? (item.levels ?? []) : (item.options ?? [])).map(optionName);
    const classes = ns ? [...names, NOT_STATED] : names;
    return [
      {
        key: choiceKey(item.question, classes),
        label: item.name,
        classes,
        classOf: (l) => (typeof l === "string" ? classes.indexOf(l) : -1),
      },
    ];
  }
  if (item.kind === "yesno") {
    const opts = (item.options ?? ["yes", "no"]).map(optionName);
    const classOf = (l: string | string[] | undefined): number =>
      l === opts[0] ? 0 : l === opts[1] ? 1 : ns && l === NOT_STATED ? 2 : -1;
    if (ns) {
      const classes = ["yes", "no", NOT_STATED];
      return [{ key: choiceKey(item.question, classes), label: item.name, classes, classOf }];
    }
    return [{ key: `noul|${norm(item.question)}`, label: item.name, classes: ["yes", "no"], classOf }];
  }
  const targets: TargetSpec[] = (item.options ?? []).map(optionName).map((name) => ({
    key: `option|${norm(item.question)}|${norm(name)}`,
    label: `${item.name}['${name}']`,
    classes: ["yes", "no"],
    classOf: (l) => (Array.isArray(l) ? (l.includes(name) ? 0 : 1) : -1),
  }));
  if (ns) {
    targets.push({
      key: `ns|${norm(item.question)}`,
      label: `${item.name}[not stated]`,
      classes: ["yes", "no"],
      classOf: (l) => (l === NOT_STATED ? 0 : Array.isArray(l) ? 1 : -1),
    });
  }
  return targets;
}
