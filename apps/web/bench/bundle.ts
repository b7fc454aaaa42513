/**
 * First-page JavaScript of the production bundle, gzip: builds apps/web, loads the start page in Chromium
 * (fixture API), and gzips every script it fetched. Baseline in the same run: all JavaScript of the bundle.
 * Run: node --import tsx bench/bundle.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "vite";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { launchChromium } from "./browser";
import { startBenchServer } from "./server";

recordResults(import.meta.url, "first-page JavaScript");

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(WEB, "dist");
const BUDGET = 300 * 1024;

const gz = (b: Buffer | Uint8Array) => gzipSync(b, { level: 9 }).length;
const kB = (x: number) => `${(x / 1024).toFixed(1)} kB`;

await build({ root: WEB, configFile: join(WEB, "vite.config.ts"), logLevel: "warn" });
const assets = readdirSync(join(DIST, "assets")).filter((f) => f.endsWith(".js"));
const all = assets.reduce((s, f) => s + gz(readFileSync(join(DIST, "assets", f))), 0);

const { url, server } = await startBenchServer(DIST, 100_000);
const browser = await launchChromium();
const measure = async (path: string, ready: string) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const scripts = new Map<string, number>();
  page.on("response", async (res) => {
    if (res.url().endsWith(".js")) scripts.set(res.url(), gz(await res.body()));
  });
  await page.goto(url + path);
  await page.waitForSelector(ready);
  await page.waitForLoadState("networkidle");
  await page.close();
  return [...scripts.entries()];
};
const first = await measure("/", "table.runs");
const reliability = await measure("/runs/run_bench", '[data-ready="reliability"] .recharts-surface');
await browser.close();
server.close();

const sum = (xs: [string, number][]) => xs.reduce((s, [, b]) => s + b, 0);
const firstTotal = sum(first);
console.log("First page (/, the runs list): scripts fetched, gzip -9");
for (const [u, b] of first.sort((a, b) => b[1] - a[1]))
  console.log(`  ${kB(b).padStart(9)}  ${u.split("/").pop()}`);
console.log(
  `first page JS  ${kB(firstTotal)}  (budget ${kB(BUDGET)}: ${((firstTotal / BUDGET) * 100).toFixed(0)}% of it)`,
);
console.log(
  `all JS of the bundle  ${kB(all)}  (baseline; first page loads ${((firstTotal / all) * 100).toFixed(0)}% of it)`,
);
console.log(
  `a run's reliability view  ${kB(sum(reliability))}  (${((sum(reliability) / all) * 100).toFixed(0)}% of all JS, charts included)`,
);
if (firstTotal > BUDGET) process.exitCode = 1;
