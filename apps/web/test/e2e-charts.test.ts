// @vitest-environment node
/**
 * The run page's charts end to end in Debian's Chromium (playwright-core) against the built API and its embedded
 * reference server: every chart is a named image with a data table button (no svg role="application" left), the
 * "Confident and wrong" threshold and the histogram's scale survive a reload through the URL, axis ticks are evenly
 * spaced, points at 100 % are drawn whole, at 1440 and 420 px. Screenshots go to apps/web/screenshots/charts-*.png.
 */

import type { ItemReport, ItemsPage } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import { chromiumWorkbench, finishedRun, STEP, shot } from "./e2e-harness";

let runId = "";
let multiRunId = "";

const e2e = chromiumWorkbench("e2e-charts", async (wb) => {
  runId = await finishedRun(wb, { dataset: "penguins" });
  multiRunId = await finishedRun(wb, { dataset: "spam-assassin", limit: 40 });
});

/** The run page of one tab and item, drawn. */
async function open(tab: string, query: string, run = runId): Promise<void> {
  await e2e.page.goto(`${e2e.workbench.url}/runs/${run}?tab=${tab}&${query}`);
  await e2e.page.waitForSelector(`[data-ready="${tab}"]`, { timeout: STEP });
}

/** Every view with charts: tab, query, run. */
const VIEWS: [string, string, () => string][] = [
  ["reliability", "item=species", () => runId],
  ["reliability", "item=species&view=classwise", () => runId],
  ["confidence", "item=species", () => runId],
  ["unknowns", "item=sex", () => runId],
  ["confusion", "item=species", () => runId],
  ["thresholds", "item=properties", () => multiRunId],
];

/** What is wrong with the page's charts' accessibility, one line each (empty when nothing is). */
async function chartProblems(): Promise<string[]> {
  return e2e.page.evaluate(() => {
    const out: string[] = [];
    for (const svg of document.querySelectorAll("svg[role=application]"))
      out.push(`svg role=application: ${svg.outerHTML.slice(0, 80)}`);
    const figures = [...document.querySelectorAll("figure.chart")];
    if (!figures.length) out.push("no chart on the page");
    for (const f of figures) {
      const title = f.querySelector(".chart-title")?.textContent ?? "(untitled)";
      const labelledBy = f.getAttribute("aria-labelledby");
      const caption = f.querySelector("figcaption")?.textContent?.trim();
      if (!(labelledBy ? document.getElementById(labelledBy)?.textContent?.trim() : caption))
        out.push(`figure without a name: ${title}`);
      // every drawing is inside a named image (a chart library's svg, or the small multiples' own)
      for (const svg of f.querySelectorAll("svg.recharts-surface, svg.mini-chart")) {
        const img = svg.closest("[role=img]");
        const name = img?.getAttribute("aria-label") ?? "";
        if (name.length < 20) out.push(`drawing without an accessible name in ${title}: "${name}"`);
        if (img && !name.includes(" ")) out.push(`name is not a sentence in ${title}`);
      }
      const hasDrawing = f.querySelector("svg") !== null;
      const button = f.querySelector("details.chart-table > summary");
      const buttonName = button?.getAttribute("aria-label") ?? "";
      if (hasDrawing && !(buttonName.startsWith("Data table of ") && buttonName.includes(title)))
        out.push(`no data table button: ${title}`);
      if (hasDrawing && button && !button.closest("details")?.querySelector("table"))
        out.push(`data table button with no table: ${title}`);
    }
    return out;
  });
}

/** The tick labels and their vertical pixel positions of a chart's y axis (the first chart whose title matches). */
async function yTicks(title: string): Promise<{ values: number[]; ys: number[] }> {
  const figure = e2e.page.locator("figure.chart", {
    has: e2e.page.locator(".chart-title", { hasText: title }),
  });
  const ticks = figure.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").first();
  await ticks.waitFor({ timeout: STEP });
  return figure.evaluate((f) => {
    const nodes = [...f.querySelectorAll(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value")];
    return {
      values: nodes.map((n) => Number((n.textContent ?? "").replace(/,/g, ""))),
      ys: nodes.map((n) => {
        const r = n.getBoundingClientRect();
        return r.top + r.height / 2;
      }),
    };
  });
}

/** True when neighbouring numbers differ by the same step (within `tolerance`). */
function evenlySpaced(xs: number[], tolerance: number): boolean {
  const steps = xs.slice(1).map((x, i) => x - xs[i]);
  return steps.every((s) => Math.abs(s - steps[0]) <= tolerance);
}

/** The pager's total ("1–12 of 12"), or 0 when the list is empty. */
async function listTotal(): Promise<number> {
  await e2e.page.waitForSelector('[data-ready="items"], .empty', { timeout: STEP });
  if ((await e2e.page.locator(".pager span").count()) === 0) return 0;
  const text = (await e2e.page.locator(".pager span").textContent()) ?? "";
  const m = /of ([\d,]+)/.exec(text);
  if (!m) throw new Error(`no total in the pager: "${text}"`);
  return Number(m[1].replace(/,/g, ""));
}

describe("the run page's charts in Chromium", () => {
  it(
    "names every chart, links its data table, and leaves no svg role=application",
    async () => {
      for (const [tab, query, run] of VIEWS) {
        await open(tab, query, run());
        expect(await chartProblems(), `${tab} ${query}`).toEqual([]);
      }
      // a chart's name takes no control's label: getByLabel("Bins") finds the Bins select alone
      await open("reliability", "item=species");
      await expect(e2e.page.getByLabel("Bins").count()).resolves.toBe(1);
      await open("reliability", "item=species");
      const img = e2e.page.getByRole("img", {
        name: /^Reliability of species, test split: accuracy against mean confidence, \d+ answers over \d+ confidence ranges/,
      });
      await expect(img.count()).resolves.toBe(1);
      const button = e2e.page.getByText("Data table", { exact: false }).first();
      await button.click();
      await expect(e2e.page.locator("details.chart-table[open] table").first().isVisible()).resolves.toBe(
        true,
      );
    },
    STEP,
  );

  it(
    "keeps the Confident-and-wrong threshold in the URL and lists only wrong answers above it",
    async () => {
      const wrong = await e2e.workbench.api<ItemsPage>(
        `/api/runs/${runId}/items?item=species&split=all&filter=confident-wrong&limit=500`,
      );
      const confidences = wrong.rows.map((r) => r.confidence ?? 0);
      const atLeast = (t: number) => confidences.filter((c) => c >= t - 1e-12).length;
      await open("items", "item=species&split=all");
      const field = e2e.page.getByLabel("Confidence at least");
      await expect(field.inputValue()).resolves.toBe("80");
      expect(await listTotal()).toBe(atLeast(0.8));
      // the old list showed every wrong answer here, down to the least confident one
      expect(atLeast(0.8)).toBeLessThan(wrong.total);
      // a lower threshold (at the second least confident wrong answer) lists more, still not all
      const t = Math.floor((confidences[confidences.length - 2] ?? 0.6) * 20) / 20;
      expect(atLeast(t)).toBeGreaterThan(atLeast(0.8));
      await field.fill(String(Math.round(t * 100)));
      await e2e.page.waitForURL(new RegExp(`confidence=${t}`));
      await e2e.page.reload();
      await e2e.page.waitForSelector('[data-ready="items"], .empty', { timeout: STEP });
      await expect(e2e.page.getByLabel("Confidence at least").inputValue()).resolves.toBe(
        String(Math.round(t * 100)),
      );
      const shown = atLeast(t);
      if (shown > 0) {
        expect(await listTotal()).toBe(shown);
        const cells = await e2e.page.locator("table.items tbody td.num").allTextContents();
        for (const c of cells) expect(Number.parseFloat(c)).toBeGreaterThanOrEqual(t * 100 - 0.05);
      }
      expect(await e2e.page.locator(".confident-threshold").textContent()).toContain(
        `${shown} ${shown === 1 ? "answer" : "answers"}`,
      );
      // "Wrong" still lists every wrong answer, down to the least confident one
      await e2e.page.locator(".segmented label", { hasText: /^Wrong$/ }).click();
      await e2e.page.waitForURL(/filter=wrong/);
      await e2e.page.waitForSelector('[data-ready="items"]', { timeout: STEP });
      expect(await listTotal()).toBe(wrong.total);
      await shot(e2e.page, "charts-1440-items");
    },
    STEP,
  );

  it(
    "keeps the histogram's scale in the URL, with evenly spaced ticks on every scale",
    async () => {
      await open("confidence", "item=species");
      const count = await yTicks("Confidence of right and wrong answers");
      expect(count.values[0]).toBe(0);
      expect(evenlySpaced(count.values, 1e-9)).toBe(true);
      expect(evenlySpaced(count.ys, 1.5)).toBe(true);
      await e2e.page.locator(".segmented label", { hasText: "Log count" }).click();
      await e2e.page.waitForURL(/hist=log/);
      await e2e.page.reload();
      await e2e.page.waitForSelector('[data-ready="confidence"]', { timeout: STEP });
      await expect(e2e.page.getByRole("radio", { name: "Log count" }).isChecked()).resolves.toBe(true);
      const log = await yTicks("Confidence of right and wrong answers");
      expect(log.values.slice(0, 3)).toEqual([1, 10, 100]);
      expect(evenlySpaced(log.ys, 1.5)).toBe(true); // powers of ten, evenly spaced on a log axis
      await shot(e2e.page, "charts-1440-confidence-log");
      await e2e.page.locator(".segmented label", { hasText: "Share of group" }).click();
      await e2e.page.waitForURL(/hist=share/);
      await e2e.page.reload();
      await e2e.page.waitForSelector('[data-ready="confidence"]', { timeout: STEP });
      await expect(e2e.page.getByRole("radio", { name: "Share of group" }).isChecked()).resolves.toBe(true);
      const share = await yTicks("Confidence of right and wrong answers");
      expect(evenlySpaced(share.values, 1e-9)).toBe(true);
      expect(await e2e.page.locator(".chart-body").first().getAttribute("aria-label")).toMatch(
        /height is share of group/,
      );
    },
    STEP,
  );

  it(
    "spaces the risk-coverage error axis evenly and draws points at 100 % whole",
    async () => {
      await open("unknowns", "item=sex");
      const risk = await yTicks("Risk against coverage");
      expect(risk.values[0]).toBe(0);
      expect(risk.values.length).toBeGreaterThanOrEqual(3);
      expect(evenlySpaced(risk.values, 1e-9)).toBe(true);
      expect(evenlySpaced(risk.ys, 1.5)).toBe(true);
      await shot(e2e.page, "charts-1440-unknowns");
      for (const [tab, query] of [
        ["reliability", "item=species"],
        ["unknowns", "item=sex"],
      ]) {
        await open(tab, query);
        const cut = await e2e.page.evaluate(() => {
          const out: string[] = [];
          for (const c of document.querySelectorAll(".chart svg.recharts-surface circle")) {
            if (c.closest("[clip-path]")) out.push(`clipped: ${c.outerHTML.slice(0, 60)}`);
            const svg = c.closest("svg")?.getBoundingClientRect();
            const r = c.getBoundingClientRect();
            if (svg && (r.left < svg.left || r.right > svg.right || r.top < svg.top || r.bottom > svg.bottom))
              out.push(`outside its chart: ${c.outerHTML.slice(0, 60)}`);
          }
          return out;
        });
        expect(cut, tab).toEqual([]);
      }
      // the check above covered points on the edge: a bin right 100 % of the time, drawn at the top
      const report = await e2e.workbench.api<ItemReport>(`/api/runs/${runId}/report?item=species`);
      expect(report.bins.width.some((b) => b.count > 0 && b.accuracy === 1)).toBe(true);
      await open("reliability", "item=species");
      await shot(e2e.page, "charts-1440-reliability");
    },
    STEP,
  );

  it(
    "stays named and fits at 420 px",
    async () => {
      await e2e.page.setViewportSize({ width: 420, height: 900 });
      for (const [tab, query, run] of [
        ...VIEWS,
        ["items", "item=species&split=all&confidence=0.9", () => runId] as [string, string, () => string],
      ]) {
        await e2e.page.goto(`${e2e.workbench.url}/runs/${run()}?tab=${tab}&${query}`);
        await e2e.page.waitForSelector(`[data-ready="${tab}"], .empty`, { timeout: STEP });
        if (tab !== "items") expect(await chartProblems(), `${tab} ${query}`).toEqual([]);
        // the charts and the threshold field fit (the items tab's filters are another change's)
        const wide = await e2e.page.evaluate(() =>
          [...document.querySelectorAll("figure.chart, .confident-threshold")]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth)
            .map((e) => e.className),
        );
        expect(wide, `${tab} ${query}`).toEqual([]);
        await shot(e2e.page, `charts-420-${tab}${query.includes("classwise") ? "-per-option" : ""}`);
      }
      await e2e.page.setViewportSize({ width: 1440, height: 900 });
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP,
  );
});
