// @vitest-environment node
/**
 * Partial numbers in Debian's Chromium against the built API: a run on a slow reference server (its first answer
 * held back 4 s, every other one 250 ms) says it prepares its examples until the first answer, marks its headline
 * "partial: N of M examples" while it runs and refreshes it without a reload, and, once cancelled, keeps the mark
 * on the header and the charts and shows no time left. On the Calibrate page, a fit shows up in the check section
 * at once. Screenshots go to apps/web/screenshots/partial-*.png (1440 and 420 px).
 */

import { join } from "node:path";
import type { Calibration, RunSummary } from "@decision-workbench/api/shapes";
import { afterAll, describe, expect, it } from "vitest";
import { APPS, chromiumWorkbench, finishedRun, importBuilt, STEP, shot } from "./e2e-harness";

interface DecisionServer {
  url: string;
  close(): Promise<void>;
}

/** Examples per split of the slow run (calibration and test). */
const PER_SPLIT = 60;

let slow: DecisionServer | undefined;
let slowServerId = "";
let finished = "";

const e2e = chromiumWorkbench("e2e-partial", async (wb) => {
  const ds = await importBuilt<{
    startDecisionServer(o: {
      port: number;
      faults: { rules: { on?: number[]; rate?: number; fault: { kind: "delay"; ms: number } }[] };
    }): Promise<DecisionServer>;
  }>(
    join(APPS, "decision-server", "dist", "index.js"),
    "the reference decision server (apps/decision-server)",
  );
  slow = await ds.startDecisionServer({
    port: 0,
    faults: {
      rules: [
        { on: [1], fault: { kind: "delay", ms: 4000 } },
        { rate: 1, fault: { kind: "delay", ms: 250 } },
      ],
    },
  });
  slowServerId = (
    await wb.api<{ id: string }>("/api/servers", {
      method: "POST",
      body: JSON.stringify({ name: "Slow reference", baseUrl: slow.url, models: ["workbench-latest"] }),
    })
  ).id;
  finished = await finishedRun(wb, { dataset: "penguins" });
});

afterAll(async () => {
  await slow?.close();
});

/** The number after "n = " in the header's ECE figure (the examples the headline pools). */
async function headlineN(): Promise<number> {
  const text =
    (await e2e.page.locator("dl.facts div", { hasText: "Plain ECE, all items" }).textContent()) ?? "";
  const m = /n = ([\d,]+)/.exec(text);
  return m ? Number(m[1].replace(/,/g, "")) : 0;
}

/** Marks the loaded document, so that {@link sameDocument} tells whether the page was loaded again since. */
async function markDocument(): Promise<void> {
  await e2e.page.evaluate(() => {
    (window as unknown as { notReloaded?: boolean }).notReloaded = true;
  });
}

async function sameDocument(): Promise<boolean> {
  return e2e.page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true);
}

describe("partial numbers in Chromium", () => {
  it(
    "prepares, marks the running run's figures partial and refreshes them, then keeps the mark after a cancel",
    async () => {
      const page = e2e.page;
      const run = await e2e.workbench.api<RunSummary>("/api/runs", {
        method: "POST",
        body: JSON.stringify({
          serverId: slowServerId,
          model: "workbench-latest",
          dataset: "penguins",
          concurrency: 1,
          limit: PER_SPLIT,
        }),
      });
      const total = run.progress.total;
      expect(total).toBe(2 * PER_SPLIT);
      await page.goto(`${e2e.workbench.url}/runs/${run.id}`);

      // before the first answer: what the run is doing, not a silent wait
      const preparing = page.getByTestId("run-preparing");
      await preparing.waitFor({ timeout: STEP });
      expect(await preparing.getAttribute("role")).toBe("status");
      expect(await preparing.textContent()).toContain(`Preparing ${total} examples`);
      await shot(page, "partial-1440-preparing");

      // while it runs: the headline is marked partial with how much it covers
      const note = page.getByTestId("partial-note");
      await note.filter({ hasText: /^Partial: [1-9]\d* of 120 examples/ }).waitFor({ timeout: STEP });
      expect(await note.getAttribute("role")).toBe("status");
      expect(await note.textContent()).toContain("the run is still running");
      expect(await page.locator("dl.facts .partial-badge").count()).toBe(2);
      expect(await preparing.count()).toBe(0);
      // an ETA while it runs
      await page.getByTestId("progress-pace").filter({ hasText: /left$/ }).waitFor({ timeout: STEP });

      // the headline follows the stored answers without a reload
      await markDocument();
      const first = await headlineN();
      await page.waitForFunction(
        (n) => {
          const dd = [...document.querySelectorAll("dl.facts div")].find((d) =>
            d.textContent?.includes("Plain ECE, all items"),
          );
          const m = /n = ([\d,]+)/.exec(dd?.textContent ?? "");
          return m !== null && Number(m[1].replace(/,/g, "")) > n;
        },
        first,
        { timeout: STEP },
      );
      expect(await headlineN()).toBeGreaterThan(first);
      expect(await sameDocument()).toBe(true);
      await shot(page, "partial-1440-running");
      await page.setViewportSize({ width: 420, height: 900 });
      await shot(page, "partial-420-running");
      await page.setViewportSize({ width: 1440, height: 900 });

      // cancelled part-way: still marked partial, the charts say so, and no time left is promised
      // answers in flight when the cancel answered are stored after it; the stream's `done` brings the final count
      await page.getByRole("button", { name: "Cancel run" }).click();
      await page.locator(".badge-cancelled").first().waitFor({ timeout: STEP });
      await page.locator("[data-stream=closed]").waitFor({ timeout: STEP });
      const cancelled = await e2e.workbench.api<RunSummary>(`/api/runs/${run.id}`);
      await note
        .filter({ hasText: `Partial: ${cancelled.progress.done} of ${total} examples` })
        .waitFor({ timeout: STEP });
      expect(cancelled.progress.done).toBeLessThan(total);
      expect(await note.textContent()).toContain("the run was cancelled");
      expect(await page.locator("dl.facts .partial-badge").count()).toBe(2);
      const caption = page.getByTestId("partial-caption");
      await caption.waitFor({ timeout: STEP });
      expect(await caption.textContent()).toContain(
        `drawn from ${cancelled.progress.done} of ${total} examples: the run was cancelled`,
      );
      await page.locator("[data-ready=reliability]").waitFor({ timeout: STEP });
      const pace = (await page.getByTestId("progress-pace").textContent()) ?? "";
      expect(pace).toMatch(/^last known/);
      expect(pace).not.toMatch(/left/);
      // a cancelled run offers to resume instead of to cancel
      await page.getByRole("button", { name: "Resume run" }).waitFor({ timeout: STEP });
      expect(await page.getByRole("button", { name: "Cancel run" }).count()).toBe(0);
      await shot(page, "partial-1440-cancelled");
      await page.setViewportSize({ width: 420, height: 900 });
      await shot(page, "partial-420-cancelled");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.setViewportSize({ width: 1440, height: 900 });

      // a finished run carries no mark
      await page.goto(`${e2e.workbench.url}/runs/${finished}`);
      await page.locator("[data-ready=reliability]").waitFor({ timeout: STEP });
      expect(await page.locator(".partial-badge").count()).toBe(0);
      expect(await page.getByTestId("partial-note").count()).toBe(0);
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP * 2,
  );

  it(
    "shows a calibration fitted on the page in the check section at once, without a reload",
    async () => {
      const page = e2e.page;
      await page.goto(`${e2e.workbench.url}/runs/${finished}/calibrate`);
      const check = page.getByRole("region", { name: "Check this run against a calibration" });
      await check.getByText("No calibration of this dataset to check against").waitFor({ timeout: STEP });
      await markDocument();
      const form = page.getByRole("form", { name: "Fit a calibration" });
      const [response] = await Promise.all([
        page.waitForResponse(
          (r) => /\/api\/runs\/[^/]+\/calibrations$/.test(r.url()) && r.request().method() === "POST",
          { timeout: STEP },
        ),
        form.getByRole("button", { name: "Fit calibration" }).click(),
      ]);
      expect(response.status()).toBe(201);
      const cal = (await response.json()) as Calibration;
      const picker = check.getByLabel("Calibration", { exact: true });
      await picker.waitFor({ timeout: STEP });
      expect(await picker.inputValue()).toBe(cal.id);
      expect(await check.getByText("No calibration of this dataset to check against").count()).toBe(0);
      await check.getByRole("button", { name: "Check" }).click();
      await check.locator(".check-verdict-title").waitFor({ timeout: STEP });
      // the address changed (cal=, check=) but the document was never loaded again
      expect(await sameDocument()).toBe(true);
      await check.scrollIntoViewIfNeeded();
      await shot(page, "partial-1440-check-after-fit");
      await page.setViewportSize({ width: 420, height: 900 });
      await check.scrollIntoViewIfNeeded();
      await shot(page, "partial-420-check-after-fit");
      await page.setViewportSize({ width: 1440, height: 900 });
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP,
  );
});
