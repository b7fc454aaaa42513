import { describe, expect, it } from "vitest";
import { BODY_MASS_EDGES } from "../src/bundled/penguins.js";
import { CUT_MARKER, MAX_BODY_CHARS } from "../src/email/message.js";
import { emailProperties } from "../src/email/properties.js";
import type { Dataset, Example } from "../src/index.js";
import { listDatasets, loadDataset, NOT_STATED, SPLITS, splitOf, validateDataset } from "../src/index.js";

/** Golden hashes: a change means the bundled data changed, and every stored run against it is stale. */
const GOLDEN: Record<string, string> = {
  "spam-assassin": "7cd28656f472d0ec5de4eefc5cd84bfe7960bd614f9995284f298366f2f35b77",
  penguins: "f47d77ff1250948d5affe923a7841d24defe2183b76f9418b9a33e7188a8bc93",
  "brown-genres": "3090e28157d047c9eaf7e5915e07b1d8619e3b196464d04b7b478c86ce980c63",
  "seattle-weather": "762ad3e29043f37ee580badc819b112751932083dda9bf3dd52742ba4a51172a",
};

const names = listDatasets().map((d) => d.name);

/** True when each split's share of n units is within 4 standard deviations of 50 / 25 / 25 %. */
function proportionsOk(splits: string[]): boolean {
  const n = splits.length;
  return SPLITS.every((s, i) => {
    const p = i === 0 ? 0.5 : 0.25;
    const share = splits.filter((x) => x === s).length / n;
    return Math.abs(share - p) <= 4 * Math.sqrt((p * (1 - p)) / n);
  });
}

describe("listDatasets / loadDataset", () => {
  it("lists the four bundled datasets", () => {
    expect(names).toEqual(["spam-assassin", "penguins", "brown-genres", "seattle-weather"]);
  });

  it.each(names)(
    "%s: loads offline with as many examples and items as listed, and a stable hash",
    async (name) => {
      const info = listDatasets().find((d) => d.name === name)!;
      const ds = await loadDataset(name);
      expect(ds.task.name).toBe(name);
      expect(ds.examples).toHaveLength(info.examples);
      expect(ds.task.items).toHaveLength(info.items);
      expect(ds.hash).toBe(GOLDEN[name]);
    },
  );

  it.each(names)(
    "%s: every label is valid for its item, every item is labelled, ids are unique",
    async (name) => {
      const ds = await loadDataset(name);
      expect(validateDataset(ds.task, ds.examples)).toEqual([]);
      for (const e of ds.examples)
        expect(Object.keys(e.labels).sort()).toEqual(ds.task.items.map((i) => i.name).sort());
    },
  );

  it.each(names.filter((n) => n !== "brown-genres"))(
    "%s: splits come from the id hash, about 50/25/25",
    async (name) => {
      const ds = await loadDataset(name);
      for (const e of ds.examples) expect(e.split).toBe(splitOf(e.id));
      expect(proportionsOk(ds.examples.map((e) => e.split))).toBe(true);
    },
  );

  it("caches: a second load returns the same object, concurrent loads share one read", async () => {
    const a = loadDataset("penguins");
    const b = loadDataset("penguins");
    expect(a).toBe(b);
    const first = await loadDataset("spam-assassin");
    expect(await loadDataset("spam-assassin")).toBe(first);
  });

  it("the shared cached copy is read-only", async () => {
    const ds = await loadDataset("penguins");
    expect(() => ds.examples.sort()).toThrow(TypeError);
    expect(() => {
      (ds.examples[0].labels as Record<string, string>).species = "Gentoo";
    }).toThrow(TypeError);
    expect(() => {
      (ds.examples[0].state as Record<string, unknown>).Island = "x";
    }).toThrow(TypeError);
    const copy = [...ds.examples].sort((a, b) => (a.id < b.id ? 1 : -1));
    expect(copy[0].id).toBe("penguin-344");
  });

  it("an unknown name is an error that lists the bundled names", () => {
    expect(() => loadDataset("spam")).toThrow(
      /unknown dataset "spam"; the bundled datasets are "spam-assassin", "penguins"/,
    );
  });
});

describe("spam-assassin", () => {
  let ds: Dataset;
  const load = async () => {
    ds ??= await loadDataset("spam-assassin");
    return ds;
  };

  it("has the corpus's groups and labels spam by group", async () => {
    const { examples } = await load();
    const groups: Record<string, number> = {};
    for (const e of examples) {
      const g = String(e.meta?.group);
      groups[g] = (groups[g] ?? 0) + 1;
      expect(e.labels.is_spam).toBe(g.startsWith("spam") ? "yes" : "no");
      expect(e.id.startsWith(`${g}/`)).toBe(true);
    }
    expect(groups).toEqual({
      "easy-ham-1": 2500,
      "easy-ham-2": 1400,
      "hard-ham-1": 250,
      "spam-1": 500,
      "spam-2": 1396,
    });
  });

  it("states are Subject + body, bounded in size; properties follow the rules on the state", async () => {
    const { examples } = await load();
    let cut = 0;
    for (const e of examples) {
      const text = e.state as string;
      expect(text.startsWith("Subject: ")).toBe(true);
      const nl = text.indexOf("\n\n");
      const subject = text.slice("Subject: ".length, nl);
      const body = text.slice(nl + 2);
      expect(body.length).toBeLessThanOrEqual(MAX_BODY_CHARS + CUT_MARKER.length);
      if (body.endsWith(CUT_MARKER)) cut++;
      expect(e.labels.properties).toEqual(emailProperties(subject, body));
    }
    expect(cut).toBe(examples.filter((e) => e.meta?.cut === true).length);
    expect(cut).toBeGreaterThan(0);
  });
});

describe("penguins", () => {
  it("Sex is in the state exactly when the sex label is not 'not stated'; keys in fixed order; numbers", async () => {
    const { examples } = await loadDataset("penguins");
    let notStated = 0;
    for (const e of examples) {
      const state = e.state as Record<string, unknown>;
      const keys = ["Island", "Beak Length (mm)", "Beak Depth (mm)", "Flipper Length (mm)"];
      if (e.labels.sex === NOT_STATED) notStated++;
      else keys.push("Sex");
      expect(Object.keys(state)).toEqual(keys);
      expect(typeof state["Flipper Length (mm)"]).toBe("number");
      if (state.Sex !== undefined) expect(String(state.Sex).toLowerCase()).toBe(e.labels.sex);
    }
    expect(notStated).toBe(9);
  });

  it("body_mass is the band of the measured mass, which the state does not contain", async () => {
    const { task, examples } = await loadDataset("penguins");
    const levels = task.items
      .find((i) => i.name === "body_mass")!
      .levels!.map((l) => (typeof l === "string" ? l : l.name));
    for (const e of examples) {
      const g = e.meta?.bodyMassG as number;
      const band = BODY_MASS_EDGES.filter((edge) => g >= edge).length;
      expect(e.labels.body_mass).toBe(levels[band]);
      expect(JSON.stringify(e.state)).not.toContain("Body Mass");
    }
  });
});

describe("brown-genres", () => {
  it("passages of one text share its split; texts split about 50/25/25", async () => {
    const { examples } = await loadDataset("brown-genres");
    const byText = new Map<string, Example[]>();
    for (const e of examples) {
      const text = String(e.meta?.text);
      expect(e.id).toMatch(new RegExp(`^${text}-\\d{2}$`));
      byText.set(text, [...(byText.get(text) ?? []), e]);
    }
    expect(byText.size).toBe(500);
    for (const [text, list] of byText) for (const e of list) expect(e.split).toBe(splitOf(text));
    expect(proportionsOk([...byText.keys()].map(splitOf))).toBe(true);
  });

  it("has all 15 genres and passages of at least 150 words with the tags removed", async () => {
    const { examples } = await loadDataset("brown-genres");
    expect(new Set(examples.map((e) => e.labels.genre)).size).toBe(15);
    for (const e of examples) {
      const text = e.state as string;
      expect(text.split(/\s+/).length).toBeGreaterThanOrEqual(150);
      expect(text).not.toMatch(/\w\/(at|nn|vbd|in)\b/);
    }
  });
});

describe("seattle-weather", () => {
  it("states keep the file's column order with numbers as numbers", async () => {
    const { examples } = await loadDataset("seattle-weather");
    for (const e of examples) {
      const s = e.state as Record<string, unknown>;
      expect(Object.keys(s)).toEqual(["date", "precipitation", "temp_max", "temp_min", "wind"]);
      expect(Number.isFinite(s.wind)).toBe(true);
    }
    expect(examples.filter((e) => e.labels.weather === "snow").length).toBeLessThan(examples.length / 20);
  });
});
