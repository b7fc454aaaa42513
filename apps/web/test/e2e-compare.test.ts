// @vitest-environment node
/**
 * Compare in Debian's Chromium, after a weight swap: a spam-assassin run on the embedded reference server ("before the swap",
 * served by bayes-2) and a later one on a second reference server whose `workbench-latest` serves bayes-1 ("after
 * the swap"). Ticked on the Runs page newest first, the OLDER run is the baseline and every change reads "new vs
 * baseline"; Swap makes the newer run the baseline, the address keeps it; the flipped answers come a page at a time
 * with both confidences and links to each example's detail; at 420 px the page is not wider than the window.
 */
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launchChromium } from "../bench/browser.js";
import { APPS, type E2EWorkbench, importBuilt, STEP, shot, startBuiltWorkbench } from "./e2e-harness";

interface DecisionServer {
  url: string;
  close(): Promise<void>;
}

let browser: Browser;
let workbench: E2EWorkbench;
let swapped: DecisionServer;
let before = "";
let after = "";
const pageErrors: string[] = [];

/** Starts a run of every spam-assassin message on `serverId`, names it and waits until it is done; its id. */
async function namedRun(serverId: string, name: string): Promise<string> {
  const run = await workbench.api<{ id: string }>("/api/runs", {
    method: "POST",
    body: JSON.stringify({ dataset: "spam-assassin", serverId, model: "workbench-latest", concurrency: 8 }),
  });
  for (let i = 0; i < 900; i++) {
    const r = await workbench.api<{ status: string }>(`/api/runs/${run.id}`);
    if (r.status === "done") break;
    if (r.status === "failed" || r.status === "cancelled") throw new Error(`run ${run.id} ended ${r.status}`);
    await new Promise((f) => setTimeout(f, 200));
  }
  await workbench.api(`/api/runs/${run.id}`, { method: "PATCH", body: JSON.stringify({ name }) });
  return run.id;
}

async function newPage(width: number): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  return page;
}

/** The metric row's change under the non-baseline run, e.g. "+27.6 pp vs baseline, worse". */
async function change(page: Page, metric: string): Promise<string> {
  return ((await page.locator(`tr[data-metric="${metric}"] .delta`).first().textContent()) ?? "").trim();
}

beforeAll(async () => {
  chromiumPath();
  const ds = await importBuilt<{
    startDecisionServer(o: { port: number; alias: string }): Promise<DecisionServer>;
  }>(
    join(APPS, "decision-server", "dist", "index.js"),
    "the reference decision server (apps/decision-server)",
  );
  workbench = await startBuiltWorkbench("compare");
  swapped = await ds.startDecisionServer({ port: 0, alias: "bayes-1" });
  const servers = await workbench.api<{ id: string }[]>("/api/servers");
  const second = await workbench.api<{ id: string }>("/api/servers", {
    method: "POST",
    body: JSON.stringify({
      name: "Reference server, swapped weights",
      baseUrl: swapped.url,
      models: ["workbench-latest"],
      deterministic: true,
    }),
  });
  before = await namedRun(servers[0].id, "before the swap");
  // creation times are kept to the millisecond: make sure the second run is later
  await new Promise((f) => setTimeout(f, 20));
  after = await namedRun(second.id, "after the swap");
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await swapped?.close();
  await workbench?.close();
});

describe("compare after a weight swap", () => {
  it(
    "makes the older run the baseline when the Runs page gives the newer first, and swaps on request",
    async () => {
      const page = await newPage(1440);
      await page.goto(`${workbench.url}/runs`);
      // the Runs page lists the newest first: tick in that order
      await page.getByLabel(new RegExp(`^Select .*${after}.* to compare$`)).check();
      await page.getByLabel(new RegExp(`^Select .*${before}.* to compare$`)).check();
      await page.getByRole("button", { name: /Compare selected/ }).click();
      await page.waitForURL(new RegExp(`runs=${after},${before}`), { timeout: STEP });
      await page.locator("[data-ready=compare]").waitFor({ timeout: STEP });
      // the multi-label item, where more than a page of answers flipped
      await page.getByLabel("Item").selectOption("properties");
      await page.waitForURL(/item=properties/);
      await page.getByRole("heading", { name: /Flipped answers \((2[6-9]|[3-9]\d|\d{3,})\)/ }).waitFor({
        timeout: STEP,
      });
      await page.locator(`[data-ready=compare][data-baseline="${before}"]`).waitFor({ timeout: STEP });
      const baseline = page.getByRole("region", { name: "Baseline" });
      expect(await baseline.getByRole("combobox").inputValue()).toBe(before);
      expect(await page.getByTestId("compare-reading").textContent()).toContain(
        "Changes read after the swap vs the baseline before the swap (the older run)",
      );
      // the picker tells the runs apart: name, server, model, served by, date
      const picked = page.locator(`.run-picker tr[data-run="${after}"]`);
      const row = (await picked.textContent()) ?? "";
      for (const part of [
        "after the swap",
        "Reference server, swapped weights",
        "workbench-latest",
        "bayes-1",
      ])
        expect(row).toContain(part);
      // columns: the baseline first, then the newer run with its change vs the baseline
      const heads = await page.locator(".compare-metrics thead th").allTextContents();
      expect(heads[1]).toContain("before the swap");
      expect(heads[1]).toContain("baseline");
      expect(heads[2]).toContain("after the swap");
      expect(heads[2]).toContain("change vs baseline");
      const forward = await change(page, "accuracy");
      expect(forward).toMatch(/^[+−±]\d+\.\d pp vs baseline, (better|worse|no clear change)/);
      // the words follow the sign: accuracy up is better, ECE up is worse
      if (forward.includes("better")) expect(forward.startsWith("+")).toBe(true);
      if (forward.includes("worse")) expect(forward.startsWith("−")).toBe(true);
      const ece = await change(page, "ece");
      if (ece.includes("better")) expect(ece.startsWith("−")).toBe(true);
      if (ece.includes("worse")) expect(ece.startsWith("+")).toBe(true);
      await shot(page, "compare-1440-baseline");

      await baseline.getByRole("button", { name: "Swap" }).click();
      await page.waitForURL(new RegExp(`baseline=${after}`));
      await page.locator(`[data-ready=compare][data-baseline="${after}"]`).waitFor({ timeout: STEP });
      await page.getByText("Changes read before the swap vs the baseline after the swap (picked)").waitFor();
      const heads2 = await page.locator(".compare-metrics thead th").allTextContents();
      expect(heads2[1]).toContain("after the swap");
      expect(heads2[2]).toContain("before the swap");
      const backward = await change(page, "accuracy");
      // the same change seen from the other side: the opposite sign, the opposite word
      const sign = (s: string) => s.charAt(0);
      if (sign(forward) === "+") expect(sign(backward)).toBe("−");
      if (sign(forward) === "−") expect(sign(backward)).toBe("+");
      if (forward.includes("better")) expect(backward).toContain("worse");
      if (forward.includes("worse")) expect(backward).toContain("better");
      // the link keeps the choice
      await page.reload();
      await page.locator(`[data-ready=compare][data-baseline="${after}"]`).waitFor({ timeout: STEP });
      expect(await baseline.getByRole("combobox").inputValue()).toBe(after);
      await baseline.getByRole("button", { name: "Swap" }).click();
      await page.locator(`[data-ready=compare][data-baseline="${before}"]`).waitFor({ timeout: STEP });
      expect(pageErrors).toEqual([]);
      await page.close();
    },
    STEP * 2,
  );

  it(
    "pages the flipped answers with both confidences and a link to each example's detail",
    async () => {
      const page = await newPage(1440);
      await page.goto(`${workbench.url}/compare?runs=${after},${before}&item=properties`);
      await page.locator(`[data-ready=compare][data-baseline="${before}"]`).waitFor({ timeout: STEP });
      const flipped = page.getByTestId("flipped");
      const heading = (await flipped.getByRole("heading").textContent()) ?? "";
      const total = Number(/\((\d[\d,]*)\)/.exec(heading)?.[1]?.replace(/,/g, ""));
      expect(total).toBeGreaterThan(25);
      const rows = flipped.locator("tbody tr");
      expect(await rows.count()).toBe(25);
      expect(await page.getByTestId("flips-page").textContent()).toBe(`1–25 of ${total}`);
      // a row: gold, both answers, each with its confidence as a percentage and a link
      const first = rows.first();
      const cells = first.locator("td");
      expect(await cells.count()).toBe(3);
      for (const i of [1, 2]) expect(await cells.nth(i).textContent()).toMatch(/ · (\d{1,3}\.\d%|—)/);
      expect((await first.textContent()) ?? "").toMatch(/\d{1,3}\.\d%/);
      const firstId = ((await first.locator("th").textContent()) ?? "").trim();
      await shot(page, "compare-1440-flipped");

      await flipped.getByRole("button", { name: "Next →" }).click();
      await page.waitForURL(/offset=25/);
      await page
        .getByTestId("flips-page")
        .getByText(`26–${Math.min(50, total)} of ${total}`)
        .waitFor();
      const secondId = ((await rows.first().locator("th").textContent()) ?? "").trim();
      expect(secondId).not.toBe(firstId);
      await flipped.getByRole("button", { name: "← Previous" }).click();
      await page.getByTestId("flips-page").getByText(`1–25 of ${total}`).waitFor();
      expect(((await rows.first().locator("th").textContent()) ?? "").trim()).toBe(firstId);

      // the newer run's link opens the example's detail in that run
      await first.getByRole("link", { name: `Details of ${firstId} in after the swap` }).click();
      await page.waitForURL(new RegExp(`/runs/${after}\\?`), { timeout: STEP });
      const url = new URL(page.url());
      expect(url.searchParams.get("tab")).toBe("items");
      expect(url.searchParams.get("example")).toBe(firstId);
      await page.getByRole("region", { name: `Example ${firstId}` }).waitFor({ timeout: STEP });
      expect(pageErrors).toEqual([]);
      await page.close();
    },
    STEP,
  );

  it(
    "fits a 420 px window without scrolling sideways",
    async () => {
      const page = await newPage(420);
      await page.goto(`${workbench.url}/compare?runs=${after},${before}&item=properties`);
      await page.locator(`[data-ready=compare][data-baseline="${before}"]`).waitFor({ timeout: STEP });
      await page.getByTestId("flips-page").waitFor();
      // nothing sticks out of the window, except inside a box that scrolls on its own and itself fits
      const widths = await page.evaluate(() => {
        const inBox = (e: Element) => {
          for (let a = e.parentElement; a; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== "visible")
              return a.getBoundingClientRect().right <= window.innerWidth + 0.5;
          }
          return false;
        };
        return {
          page: document.documentElement.scrollWidth,
          wider: [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5 && !inBox(e))
            .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)
            .slice(0, 5),
        };
      });
      expect(widths.wider).toEqual([]);
      expect(widths.page).toBeLessThanOrEqual(420);
      await shot(page, "compare-420");
      // still usable: swap and page at this width
      await page.getByRole("button", { name: "Swap" }).click();
      await page.locator(`[data-ready=compare][data-baseline="${after}"]`).waitFor({ timeout: STEP });
      await page.getByRole("button", { name: "Next →" }).click();
      await page.waitForURL(/offset=25/);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
      expect(pageErrors).toEqual([]);
      await page.close();
    },
    STEP,
  );
});
