// @vitest-environment node
/**
 * The cost guard end to end in Debian's Chromium (playwright-core) against the built API and its embedded
 * reference server: prices set in the Server form, the New run form showing the run's estimated tokens and cost
 * before Start is pressed (the same figures POST /api/runs/estimate gives), and a run capped by max input tokens
 * stopping with its spend shown against the cap, at 1440 and 420 px. Screenshots go to
 * apps/web/screenshots/cost-*.png.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../bench/browser.js";
import type { RunEstimate, RunSummary, Server } from "../src/api/types";
import { estimateText } from "../src/transforms/cost";
import { type E2EWorkbench, openPage, STEP, shot, startBuiltWorkbench } from "./e2e-harness";

let browser: Browser;
let page: Page;
let workbench: E2EWorkbench;
const pageErrors: string[] = [];

beforeAll(async () => {
  workbench = await startBuiltWorkbench("e2e-cost");
  browser = await launchChromium();
  page = await openPage(browser, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.close();
});

describe("the cost guard in Chromium", () => {
  it(
    "shows a run's estimated tokens and cost before it starts, and its spend against a cap once stopped",
    async () => {
      const [embedded] = await workbench.api<Server[]>("/api/servers");
      await page.goto(`${workbench.url}/servers`);
      await page.getByRole("button", { name: "Add server" }).click();
      const form = page.getByRole("form", { name: "Add a server" });
      await form.getByLabel("Name").fill("Priced reference");
      await form.getByLabel("Base URL").fill(embedded.baseUrl);
      await form.getByLabel("Models").fill("workbench-latest");
      await form.getByLabel("Input price per million tokens").fill("-2");
      await form.getByRole("button", { name: "Add server" }).click();
      await page
        .getByText(/Input price per million tokens must be a number above 0/)
        .first()
        .waitFor({ timeout: STEP });
      await form.getByLabel("Input price per million tokens").fill("2");
      await form.getByLabel("Output price per million tokens").fill("8");
      await form.getByRole("button", { name: "Add server" }).click();
      await page.getByText("2 input · 8 output").waitFor({ timeout: STEP });
      const priced = (await workbench.api<Server[]>("/api/servers")).find(
        (s) => s.name === "Priced reference",
      );
      expect(priced?.inputPricePerMillion).toBe(2);
      expect(priced?.outputPricePerMillion).toBe(8);

      // the New run form on the priced server: the estimate shows before Start is pressed
      await page.goto(
        `${workbench.url}/runs/new?dataset=penguins&server=${priced?.id}&model=workbench-latest`,
      );
      const runForm = page.getByRole("form", { name: "New run" });
      await runForm.getByLabel("Decision server").selectOption(priced?.id ?? "");
      await runForm.getByLabel("Limit per split").fill("20");
      const line = page.getByTestId("run-estimate").filter({ hasText: /estimated cost/ });
      await line.waitFor({ timeout: STEP });
      const expected = await workbench.api<RunEstimate>("/api/runs/estimate", {
        method: "POST",
        body: JSON.stringify({
          dataset: "penguins",
          serverId: priced?.id,
          model: "workbench-latest",
          splits: ["calibration", "test"],
          concurrency: 16,
          limit: 20,
          options: { return_reasoning: true },
        }),
      });
      expect(expected.cost).not.toBeNull();
      await page.getByText(estimateText(expected)).waitFor({ timeout: STEP });
      expect((await workbench.api<RunSummary[]>("/api/runs")).length).toBe(0); // nothing started
      await shot(page, "cost-1440-estimate");
      await page.setViewportSize({ width: 420, height: 900 });
      await line.waitFor({ timeout: STEP });
      await shot(page, "cost-420-estimate");
      await page.setViewportSize({ width: 1440, height: 900 });

      // a cap a third of the estimate: the run stops, resumable, with its spend shown against the cap
      const cap = Math.round(expected.inputTokens / 3);
      await runForm.getByLabel("Max input tokens").fill(String(cap));
      await runForm.getByRole("button", { name: "Start run" }).click();
      await page.getByText("Stopped").first().waitFor({ timeout: STEP });
      await page
        .getByTestId("run-budget")
        .filter({ hasText: `of ${cap.toLocaleString("en-US")}` })
        .waitFor({
          timeout: STEP,
        });
      const [run] = await workbench.api<RunSummary[]>("/api/runs");
      expect(run.status).toBe("stopped");
      expect(run.stopReason).toBe("budget");
      expect(run.progress.usage.input_tokens).toBeLessThanOrEqual(cap);
      await shot(page, "cost-1440-stopped");
      expect(pageErrors).toEqual([]);
    },
    STEP * 2,
  );
});
