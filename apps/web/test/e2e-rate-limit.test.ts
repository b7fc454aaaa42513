// @vitest-environment node
/**
 * A server's rate limit end to end in Debian's Chromium (playwright-core) against the built API and its embedded
 * reference server: the limit is set in the Server form, shown on the servers page, and a run on that server
 * shows "waiting for rate limit, N s" in its progress panel, at 1440 and 420 px. Screenshots go to
 * apps/web/screenshots/rate-limit-*.png.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../bench/browser.js";
import type { RunSummary, Server } from "../src/api/types";
import { type E2EWorkbench, openPage, STEP, shot, startBuiltWorkbench } from "./e2e-harness";

let browser: Browser;
let page: Page;
let workbench: E2EWorkbench;
const pageErrors: string[] = [];

beforeAll(async () => {
  workbench = await startBuiltWorkbench("e2e-rate-limit");
  browser = await launchChromium();
  page = await openPage(browser, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.close();
});

describe("a server's rate limit in Chromium", () => {
  it(
    "is set in the Server form, and a run on the server shows that it waits for it",
    async () => {
      const [embedded] = await workbench.api<Server[]>("/api/servers");
      await page.goto(`${workbench.url}/servers`);
      await page.getByRole("button", { name: "Add server" }).click();
      const form = page.getByRole("form", { name: "Add a server" });
      await form.getByLabel("Name").fill("Limited reference");
      await form.getByLabel("Base URL").fill(embedded.baseUrl);
      await form.getByLabel("Models").fill("workbench-latest");
      await form.getByLabel("Requests a minute").fill("0");
      await form.getByRole("button", { name: "Add server" }).click();
      // a wrong limit is refused with what would be right
      await page
        .getByText(/Requests a minute must be a number above 0/)
        .first()
        .waitFor({ timeout: STEP });
      await form.getByLabel("Requests a minute").fill("60");
      await form.getByRole("button", { name: "Add server" }).click();
      await page.getByText("60 requests a minute").waitFor({ timeout: STEP });
      const limited = (await workbench.api<Server[]>("/api/servers")).find(
        (s) => s.name === "Limited reference",
      );
      expect(limited?.requestsPerMinute).toBe(60);
      expect(limited?.inputTokensPerMinute).toBeNull();
      await shot(page, "rate-limit-1440-servers");

      // one request a second with four slots: the last of them waits about three seconds
      const run = await workbench.api<RunSummary>("/api/runs", {
        method: "POST",
        body: JSON.stringify({
          serverId: limited?.id,
          model: "workbench-latest",
          dataset: "penguins",
          concurrency: 4,
          limit: 20,
        }),
      });
      await page.goto(`${workbench.url}/runs/${run.id}`);
      const status = page.getByRole("status").filter({ hasText: /waiting for rate limit, \d+ s/ });
      await status.waitFor({ timeout: STEP });
      expect(await status.textContent()).toMatch(/^waiting for rate limit, [1-5] s$/);
      await shot(page, "rate-limit-1440-run");
      await page.setViewportSize({ width: 420, height: 900 });
      await status.waitFor({ timeout: STEP });
      await shot(page, "rate-limit-420-run");
      await workbench.api(`/api/runs/${run.id}/cancel`, { method: "POST", body: "{}" });
      expect(pageErrors).toEqual([]);
    },
    STEP * 2,
  );
});
