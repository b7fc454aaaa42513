import { bundledTask } from "@decision-workbench/datasets";
import { taskSpecs } from "./src/analysis/item-spec.ts";
import { ItemDataBuilder } from "./src/analysis/matrix.ts";
import { openStorage } from "./src/storage/sqlite.ts";

const storage = openStorage("/tmp/rb/workbench.sqlite");
const spec = taskSpecs(bundledTask("seattle-weather"))[0];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  let n = 0;
  for await (const page of storage.analysisPages("run_seattleweather_a", { item: "weather" }))
    n += page.length;
  const t1 = performance.now();
  const b = new ItemDataBuilder(spec);
  for await (const page of storage.analysisPages("run_seattleweather_a", { item: "weather" }))
    for (const r of page) b.add(r);
  b.finish();
  console.log(
    "pages",
    n,
    (t1 - t0).toFixed(0),
    "pages+build",
    (performance.now() - t1).toFixed(0),
    process.resourceUsage().maxRSS >> 10,
  );
}
