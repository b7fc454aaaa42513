// Regenerates the label-count tables of bundled/<name>/README.md from the loaded data:
//   node --import tsx scripts/counts.ts          (write the tables)
//   node --import tsx scripts/counts.ts --check  (exit 1 when a README is out of date)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { labelCountsMarkdown, listDatasets, loadDataset } from "../src/index.js";
import { PACKAGE_DIR } from "../src/paths.js";

const START = "<!-- counts:start -->";
const END = "<!-- counts:end -->";

async function main(): Promise<void> {
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const { name } of listDatasets()) {
    const file = join(PACKAGE_DIR, "bundled", name, "README.md");
    const text = readFileSync(file, "utf8");
    const a = text.indexOf(START);
    const b = text.indexOf(END);
    if (a < 0 || b < a) throw new Error(`${file} has no ${START} ... ${END} block`);
    const table = labelCountsMarkdown(await loadDataset(name));
    const next = `${text.slice(0, a + START.length)}\n${table}\n${text.slice(b)}`;
    if (next === text) continue;
    stale++;
    if (check) console.error(`${file}: label counts are out of date`);
    else {
      writeFileSync(file, next);
      console.log(`updated ${file}`);
    }
  }
  if (check && stale > 0) process.exit(1);
}

await main();
