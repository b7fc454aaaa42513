// @vitest-environment node
/**
 * A shared workbench (started with a token) in Debian's Chromium: the page asks for the token, keeps it for the
 * tab, sends it in a header on every API call (never in a URL), and the API's data appears; without it the same
 * calls answer 401.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launchChromium } from "../bench/browser.js";
import { type E2EWorkbench, STEP, startBuiltWorkbench } from "./e2e-harness";

const TOKEN = "team-token-for-the-browser-0123";

let browser: Browser;
let workbench: E2EWorkbench;

beforeAll(async () => {
  chromiumPath();
  workbench = await startBuiltWorkbench("token", { "no-reference": true, token: TOKEN });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.close();
});

describe("a workbench started with a token", () => {
  it(
    "asks for the token once per tab and sends it only in the Authorization header",
    async () => {
      const page = await browser.newPage();
      const apiCalls: { url: string; auth: string | undefined; status?: number }[] = [];
      page.on("request", (r) => {
        if (new URL(r.url()).pathname.startsWith("/api/"))
          apiCalls.push({ url: r.url(), auth: r.headers().authorization });
      });
      await page.goto(`${workbench.url}/datasets`);
      const field = page.getByLabel("Token (kept for this browser tab only)");
      await field.waitFor({ timeout: 30_000 });
      expect(apiCalls.length).toBeGreaterThan(0);
      expect(apiCalls.every((c) => c.auth === undefined)).toBe(true);

      apiCalls.length = 0;
      await field.fill(TOKEN);
      await page.getByRole("button", { name: "Use token" }).click();
      await page.getByText("penguins").first().waitFor({ timeout: 30_000 });
      expect(apiCalls.length).toBeGreaterThan(0);
      for (const call of apiCalls) {
        expect(call.auth, call.url).toBe(`Bearer ${TOKEN}`);
        expect(call.url, call.url).not.toContain(TOKEN);
      }
      // The same call without the header: refused.
      const bare = await page.evaluate(async () => (await fetch("/api/datasets")).status);
      expect(bare).toBe(401);
      await page.close();
    },
    STEP,
  );
});
