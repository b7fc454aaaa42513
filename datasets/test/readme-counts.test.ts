import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { labelCounts, labelCountsMarkdown, listDatasets, loadDataset } from "../src/index.js";

const START = "<!-- counts:start -->\n";
const END = "\n<!-- counts:end -->";

describe("bundled READMEs", () => {
  it.each(listDatasets().map((d) => d.name))(
    "%s: the label-count table matches the loaded data",
    async (name) => {
      const readme = readFileSync(new URL(`../bundled/${name}/README.md`, import.meta.url), "utf8");
      const a = readme.indexOf(START);
      const b = readme.indexOf(END);
      expect(a).toBeGreaterThan(0);
      expect(readme.slice(a + START.length, b)).toBe(labelCountsMarkdown(await loadDataset(name)));
    },
  );

  it("labelCounts counts single labels once per example and multi-labels once per option", async () => {
    const ds = await loadDataset("spam-assassin");
    const rows = labelCounts(ds);
    const spam = rows.filter((r) => r.item === "is_spam");
    expect(spam.reduce((s, r) => s + r.total, 0)).toBe(ds.examples.length);
    const link = rows.find((r) => r.item === "properties" && r.label === "link")!;
    expect(link.total).toBe(
      ds.examples.filter((e) => (e.labels.properties as string[]).includes("link")).length,
    );
    const none = rows.find((r) => r.item === "properties" && r.label === "(none)")!;
    expect(none.counts.test).toBe(
      ds.examples.filter((e) => e.split === "test" && (e.labels.properties as string[]).length === 0).length,
    );
  });
});
