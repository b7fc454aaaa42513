// The reports bench's API process: the built workbench (dist), run by plain node as `pnpm start` runs it, with no
// TypeScript loader (which adds about 25 MB of resident memory and a loader thread the product does not have).
//
//   node --expose-gc bench/serve-child.mjs DIR
//
// Starts the workbench over DIR (no reference server). Once its start-up preparation has ended, prints its port, the
// runs prepared and how long that took; then its memory on each "stats" line read from standard input.

import { startWorkbench } from "../dist/cli/serve.js";
import { serveConfig } from "../dist/config.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: node --expose-gc bench/serve-child.mjs DIR");
const t0 = performance.now();
const wb = await startWorkbench(serveConfig({ "data-dir": dir, port: "0", "no-reference": true }, {}));
const prepared = await wb.prepared;
process.stdout.write(`${JSON.stringify({ port: wb.port, prepared, ms: performance.now() - t0 })}\n`);
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) {
  if (!String(chunk).includes("stats")) continue;
  globalThis.gc?.();
  const stats = {
    rss: process.memoryUsage().rss / 2 ** 20,
    heap: process.memoryUsage().heapUsed / 2 ** 20,
    peak: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(stats)}\n`);
}
await wb.close();
