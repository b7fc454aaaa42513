// @vitest-environment node
/**
 * The run report's numbers end to end in Debian's Chromium (playwright-core) against the built API and its embedded
 * reference server: the consistency test's p-value next to the metrics, MCE following the binning toggle, every
 * rate with its n (Unknowns, per-option precision and recall, small multiples), at 1440 and 420 px. Screenshots go
 * to apps/web/screenshots/report-*.png.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../bench/browser.js";
import type { ItemReport } from "../src/api/types";
import { type E2EWorkbench, finishedRun, openPage, STEP, shot, startBuiltWorkbench } from "./e2e-harness";

let browser: Browser;
let page: Page;
let workbench: E2EWorkbench;
let runId = "";
const pageErrors: string[] = [];

/** The run page of one tab and item, drawn. */
async function open(tab: string, item: string, extra = ""): Promise<void> {
  await page.goto(`${workbench.url}/runs/${runId}?tab=${tab}&item=${item}${extra}`);
  await page.waitForSelector(`[data-ready="${tab}"]`, { timeout: STEP });
}

/** The value shown on the metric card with this label. */
async function card(label: string): Promise<string> {
  const c = page.locator(".metric", { has: page.locator(".metric-label", { hasText: label }) }).first();
  return (await c.locator(".metric-value").textContent()) ?? "";
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

beforeAll(async () => {
  workbench = await startBuiltWorkbench("e2e-report");
  runId = await finishedRun(workbench, { dataset: "penguins" });
  browser = await launchChromium();
  page = await openPage(browser, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.close();
});

describe("the run report in Chromium", () => {
  it(
    "shows the consistency p-value near the metrics, and MCE follows the binning toggle",
    async () => {
      const width = await workbench.api<ItemReport>(`/api/runs/${runId}/report?item=species&binning=width`);
      const mass = await workbench.api<ItemReport>(`/api/runs/${runId}/report?item=species&binning=mass`);
      await open("reliability", "species");
      const note = page.getByTestId("consistency");
      await note.waitFor({ timeout: STEP });
      expect(await note.textContent()).toMatch(
        /(Consistent with perfect calibration|Evidence of miscalibration): p (=|<) 0?\.?\d/,
      );
      expect(await note.textContent()).toContain("consistency resampling");
      expect(await card("MCE (equal-width, 15 bins)")).toBe(pct(width.metrics?.mce[0] ?? Number.NaN));
      await shot(page, "report-1440-reliability");
      await page.locator("label", { hasText: "Equal mass" }).click();
      await page.waitForURL(/binning=mass/);
      await page
        .locator(".metric-label", { hasText: "MCE (equal-mass, 15 bins)" })
        .waitFor({ timeout: STEP });
      expect(await card("MCE (equal-mass, 15 bins)")).toBe(pct(mass.metrics?.mceMass[0] ?? Number.NaN));
      expect(await page.locator(".metric-label", { hasText: "MCE (equal-width" }).count()).toBe(0);
      await openTabByName("Confidence", "confidence");
      expect(await card("MCE (equal-mass, 15 bins)")).toBe(pct(mass.metrics?.mceMass[0] ?? Number.NaN));
      await page.getByTestId("consistency").waitFor();
      await shot(page, "report-1440-confidence");
    },
    STEP,
  );

  it(
    "shows every rate with its n: Unknowns, per-option precision and recall, small multiples",
    async () => {
      const sex = await workbench.api<ItemReport>(`/api/runs/${runId}/report?item=sex`);
      const u = sex.unknown;
      if (!u) throw new Error("sex allows not stated");
      await open("unknowns", "sex");
      const recall = page.locator(".metric", {
        has: page.locator(".metric-label", { hasText: "Unknown recall" }),
      });
      expect(await recall.textContent()).toContain(`${u.rates.recall.x}/${u.rates.recall.n}`);
      const gold = page.locator(".metric", {
        has: page.locator(".metric-label", { hasText: "Gold Unknown rate" }),
      });
      expect(await gold.textContent()).toMatch(new RegExp(`${u.rates.gold.x}/${u.rates.gold.n} · 95% CI`));
      // the picked threshold's answered-alone error comes with its count and interval
      expect(await page.locator(".picker-readout").textContent()).toMatch(
        /answered-alone error [\d.]+%.*\(\d+\/\d+, 95% CI [\d.]+–[\d.]+%\)/,
      );
      await shot(page, "report-1440-unknowns");
      await open("confusion", "species");
      const species = await workbench.api<ItemReport>(`/api/runs/${runId}/report?item=species`);
      const first = species.perOption[0];
      const table = page.locator("table", {
        has: page.locator("caption", { hasText: "Per-option precision, recall and F1" }),
      });
      const row = table.locator("tbody tr", { has: page.locator("th", { hasText: first.option }) });
      const text = (await row.textContent()) ?? "";
      expect(text).toContain(`${first.rates.precision.x}/${first.rates.precision.n}`);
      expect(text).toContain(`${first.rates.recall.x}/${first.rates.recall.n}`);
      await shot(page, "report-1440-confusion");
      await open("reliability", "species", "&view=classwise");
      await page.waitForSelector(".chart-small");
      const captions = await page.locator(".chart-small figcaption").allTextContents();
      expect(captions).toHaveLength(species.perOption.length);
      for (const [i, o] of species.perOption.entries()) {
        expect(captions[i]).toContain(`gold in ${o.support} of ${species.n}`);
        expect(captions[i]).toContain(`${o.rates.recall.x}/${o.rates.recall.n}`);
        expect(captions[i]).toMatch(/ECE [\d.]+% \([\d.]+–[\d.]+%, bias-corrected, equal-width\)/);
      }
      await shot(page, "report-1440-per-option");
    },
    STEP,
  );

  it(
    "stays readable at 420 px",
    async () => {
      await page.setViewportSize({ width: 420, height: 900 });
      for (const [tab, item, extra] of [
        ["confidence", "species", ""],
        ["unknowns", "sex", ""],
        ["confusion", "species", ""],
        ["reliability", "species", "&view=classwise"],
      ] as const) {
        await open(tab, item, extra);
        await shot(page, `report-420-${tab}${extra ? "-per-option" : ""}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, tab).toBeLessThanOrEqual(0);
      }
      expect(pageErrors).toEqual([]);
    },
    STEP,
  );
});

async function openTabByName(name: string, ready: string): Promise<void> {
  await page.getByRole("tab", { name }).click();
  await page.waitForSelector(`[data-ready="${ready}"]`, { timeout: STEP });
}
