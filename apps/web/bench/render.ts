/**
 * Render time of each view of a 100,000-prediction run in Chromium: from the moment the view's last API
 * response body has arrived to the moment its chart or table is in the page and painted. The API aggregates,
 * so the browser gets bins and curves (and one page of items), never the 100,000 rows. Baseline in the same
 * run: the same views for a 1,000-prediction run (same payload shapes, smaller counts).
 * Run: node --import tsx bench/render.ts
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { build } from "vite";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { launchChromium } from "./browser";
import { startBenchServer } from "./server";

recordResults(import.meta.url, "render time per view");

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(WEB, "dist");
const RUNS = 5;
const BUDGET_MS = 1000;

/** Each view: its address and the element that shows it is drawn. */
const VIEWS: { name: string; path: string; drawn: string }[] = [
  { name: "runs list", path: "/", drawn: "table.runs tbody tr" },
  {
    name: "reliability",
    path: "/runs/run_bench",
    drawn: '[data-ready="reliability"] .recharts-scatter-symbol',
  },
  {
    name: "reliability, equal mass",
    path: "/runs/run_bench?binning=mass",
    drawn: '[data-ready="reliability"] .recharts-scatter-symbol',
  },
  {
    name: "reliability, 15 per-option multiples",
    path: "/runs/run_bench?view=classwise",
    drawn: ".chart-small:nth-of-type(15) circle",
  },
  {
    name: "confidence",
    path: "/runs/run_bench?tab=confidence",
    drawn: '[data-ready="confidence"] .recharts-bar-rectangle',
  },
  {
    name: "thresholds (5 labels)",
    path: "/runs/run_bench?tab=thresholds&item=properties",
    drawn: '[data-ready="thresholds"] .chart-small:nth-of-type(5) .recharts-line-curve',
  },
  {
    name: "unknowns / risk-coverage",
    path: "/runs/run_bench?tab=unknowns",
    drawn: '[data-ready="unknowns"] .recharts-line-curve',
  },
  {
    name: "confusion 15 x 15",
    path: "/runs/run_bench?tab=confusion",
    drawn: "table.confusion tbody tr:nth-child(15) td",
  },
  {
    name: "items (page of 50)",
    path: "/runs/run_bench?tab=items&filter=all",
    drawn: "table.items tbody tr:nth-child(50)",
  },
  {
    name: "calibrate",
    path: "/runs/run_bench/calibrate",
    drawn: '[data-ready="calibration"] .recharts-scatter-symbol',
  },
  {
    name: "compare",
    path: "/compare?runs=run_bench,run_bench2",
    drawn: '[data-ready="compare"] .recharts-scatter-symbol',
  },
];

/** In the page: when each /api body was read, and when the watched selector first appeared and was painted. */
const INSTRUMENT = `
  window.__lastData = 0;
  const text = Response.prototype.text;
  Response.prototype.text = async function () {
    const t = await text.call(this);
    if (this.url.includes("/api/")) window.__lastData = performance.now();
    return t;
  };
  window.__watch = (selector) => new Promise((resolve) => {
    const done = () => requestAnimationFrame(() => setTimeout(() => resolve({ drawn: performance.now(), data: window.__lastData }), 0));
    if (document.querySelector(selector)) return done();
    const mo = new MutationObserver(() => { if (document.querySelector(selector)) { mo.disconnect(); done(); } });
    mo.observe(document, { childList: true, subtree: true, attributes: true });
  });
`;

type Times = Map<string, number[]>;

/** Both runs, view by view, their loads interleaved so machine load and warm-up hit both alike. */
async function renderTimes(browser: Browser): Promise<{ small: Times; large: Times }> {
  const small = await startBenchServer(DIST, 1_000);
  const large = await startBenchServer(DIST, 100_000);
  const out = { small: new Map() as Times, large: new Map() as Times };
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(INSTRUMENT);
  const page = await context.newPage();
  const once = async (base: string, v: (typeof VIEWS)[number]) => {
    await page.goto("about:blank");
    await page.goto(base + v.path);
    const t = (await page.evaluate(
      (sel) =>
        (window as unknown as { __watch(s: string): Promise<{ drawn: number; data: number }> }).__watch(sel),
      v.drawn,
    )) as { drawn: number; data: number };
    return t.drawn - t.data;
  };
  for (const v of VIEWS) {
    // the first visit to each warms the HTTP cache and the JIT and is not counted
    await once(small.url, v);
    await once(large.url, v);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      a.push(await once(small.url, v));
      b.push(await once(large.url, v));
    }
    out.small.set(v.name, a);
    out.large.set(v.name, b);
  }
  await context.close();
  small.server.close();
  large.server.close();
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (!existsSync(join(DIST, "index.html")) || process.argv.includes("--build")) {
  await build({ root: WEB, configFile: join(WEB, "vite.config.ts"), logLevel: "warn" });
}
const browser = await launchChromium();
const { small, large } = await renderTimes(browser);
await browser.close();

console.log(`Render time after the data arrived, median of ${RUNS} (Chromium, 1280 x 800)`);
console.log(`${"view".padEnd(40)} ${"1k run".padStart(9)} ${"100k run".padStart(9)}  ratio  budget`);
let worst = 0;
for (const v of VIEWS) {
  const a = median(small.get(v.name) ?? []);
  const b = median(large.get(v.name) ?? []);
  worst = Math.max(worst, b);
  console.log(
    `${v.name.padEnd(40)} ${`${a.toFixed(0)} ms`.padStart(9)} ${`${b.toFixed(0)} ms`.padStart(9)}  ${(b / a).toFixed(2).padStart(5)}  ${b <= BUDGET_MS ? "ok" : "OVER"}`,
  );
}
console.log(`slowest view at 100k: ${worst.toFixed(0)} ms of the ${BUDGET_MS} ms budget`);
if (worst > BUDGET_MS) process.exitCode = 1;
