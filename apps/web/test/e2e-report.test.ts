// @vitest-environment node
/**
 * The run report's numbers end to end in Debian's Chromium (playwright-core) against the built API and its embedded
 * reference server: the consistency test's p-value next to the metrics, MCE following the binning toggle, every
 * rate with its n (Unknowns, per-option precision and recall, small multiples), at 1440 and 420 px. Screenshots go
 * to apps/web/screenshots/report-*.png.
 */

import type { ItemReport } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import { chromiumWorkbench, finishedRun, STEP, shot } from "./e2e-harness";

let runId = "";

const e2e = chromiumWorkbench("e2e-report", async (wb) => {
  runId = await finishedRun(wb, { dataset: "penguins" });
});

/** The run page of one tab and item, drawn. */
async function open(tab: string, item: string, extra = ""): Promise<void> {
  await e2e.page.goto(`${e2e.workbench.url}/runs/${runId}?tab=${tab}&item=${item}${extra}`);
  await e2e.page.waitForSelector(`[data-ready="${tab}"]`, { timeout: STEP });
}

/** The value shown on the metric card with this label. */
async function card(label: string): Promise<string> {
  const c = e2e.page
    .locator(".metric", { has: e2e.page.locator(".metric-label", { hasText: label }) })
    .first();
  return (await c.locator(".metric-value").textContent()) ?? "";
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

describe("the run report in Chromium", () => {
  it(
    "shows the consistency p-value near the metrics, and MCE follows the binning toggle",
    async () => {
      const width = await e2e.workbench.api<ItemReport>(
        `/api/runs/${runId}/report?item=species&binning=width`,
      );
      const mass = await e2e.workbench.api<ItemReport>(`/api/runs/${runId}/report?item=species&binning=mass`);
      await open("reliability", "species");
      const note = e2e.page.getByTestId("consistency");
      await note.waitFor({ timeout: STEP });
      expect(await note.textContent()).toMatch(
        /(Consistent with perfect calibration|Evidence of miscalibration): p (=|<) 0?\.?\d/,
      );
      expect(await note.textContent()).toContain("consistency resampling");
      expect(await card("MCE (equal-width, 15 bins)")).toBe(pct(width.metrics?.mce[0] ?? Number.NaN));
      await shot(e2e.page, "report-1440-reliability");
      await e2e.page.locator("label", { hasText: "Equal mass" }).click();
      await e2e.page.waitForURL(/binning=mass/);
      await e2e.page
        .locator(".metric-label", { hasText: "MCE (equal-mass, 15 bins)" })
        .waitFor({ timeout: STEP });
      expect(await card("MCE (equal-mass, 15 bins)")).toBe(pct(mass.metrics?.mceMass[0] ?? Number.NaN));
      expect(await e2e.page.locator(".metric-label", { hasText: "MCE (equal-width" }).count()).toBe(0);
      await openTabByName("Confidence", "confidence");
      expect(await card("MCE (equal-mass, 15 bins)")).toBe(pct(mass.metrics?.mceMass[0] ?? Number.NaN));
      await e2e.page.getByTestId("consistency").waitFor();
      await shot(e2e.page, "report-1440-confidence");
    },
    STEP,
  );

  it(
    "shows every rate with its n: Unknowns, per-option precision and recall, small multiples",
    async () => {
      const sex = await e2e.workbench.api<ItemReport>(`/api/runs/${runId}/report?item=sex`);
      const u = sex.unknown;
      if (!u) throw new Error("sex allows not stated");
      await open("unknowns", "sex");
      const recall = e2e.page.locator(".metric", {
        has: e2e.page.locator(".metric-label", { hasText: "Unknown recall" }),
      });
      expect(await recall.textContent()).toContain(`${u.rates.recall.x}/${u.rates.recall.n}`);
      const gold = e2e.page.locator(".metric", {
        has: e2e.page.locator(".metric-label", { hasText: "Gold Unknown rate" }),
      });
      expect(await gold.textContent()).toMatch(new RegExp(`${u.rates.gold.x}/${u.rates.gold.n} · 95% CI`));
      // the picked threshold's answered-alone error comes with its count and interval
      expect(await e2e.page.locator(".picker-readout").textContent()).toMatch(
        /answered-alone error [\d.]+%.*\(\d+\/\d+, 95% CI [\d.]+–[\d.]+%\)/,
      );
      await shot(e2e.page, "report-1440-unknowns");
      await open("confusion", "species");
      const species = await e2e.workbench.api<ItemReport>(`/api/runs/${runId}/report?item=species`);
      const first = species.perOption[0];
      const table = e2e.page.locator("table", {
        has: e2e.page.locator("caption", { hasText: "Per-option precision, recall and F1" }),
      });
      const row = table.locator("tbody tr", { has: e2e.page.locator("th", { hasText: first.option }) });
      const text = (await row.textContent()) ?? "";
      expect(text).toContain(`${first.rates.precision.x}/${first.rates.precision.n}`);
      expect(text).toContain(`${first.rates.recall.x}/${first.rates.recall.n}`);
      await shot(e2e.page, "report-1440-confusion");
      await open("reliability", "species", "&view=classwise");
      await e2e.page.waitForSelector(".chart-small");
      const captions = await e2e.page.locator(".chart-small figcaption").allTextContents();
      expect(captions).toHaveLength(species.perOption.length);
      for (const [i, o] of species.perOption.entries()) {
        expect(captions[i]).toContain(`gold in ${o.support} of ${species.n}`);
        expect(captions[i]).toContain(`${o.rates.recall.x}/${o.rates.recall.n}`);
        expect(captions[i]).toMatch(/ECE [\d.]+% \([\d.]+–[\d.]+%, bias-corrected, equal-width\)/);
      }
      await shot(e2e.page, "report-1440-per-option");
    },
    STEP,
  );

  it(
    "stays readable at 420 px",
    async () => {
      await e2e.page.setViewportSize({ width: 420, height: 900 });
      for (const [tab, item, extra] of [
        ["confidence", "species", ""],
        ["unknowns", "sex", ""],
        ["confusion", "species", ""],
        ["reliability", "species", "&view=classwise"],
      ] as const) {
        await open(tab, item, extra);
        await shot(e2e.page, `report-420-${tab}${extra ? "-per-option" : ""}`);
        const overflow = await e2e.page.evaluate(
          () => document.documentElement.scrollWidth - window.innerWidth,
        );
        expect(overflow, tab).toBeLessThanOrEqual(0);
      }
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP,
  );
});

async function openTabByName(name: string, ready: string): Promise<void> {
  await e2e.page.getByRole("tab", { name }).click();
  await e2e.page.waitForSelector(`[data-ready="${ready}"]`, { timeout: STEP });
}
