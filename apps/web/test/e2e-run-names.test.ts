// @vitest-environment node
/**
 * Run names in Debian's Chromium: two runs with the same title ("penguins on workbench-latest"), one renamed on
 * its page through "Rename" (a name too long refused on its field first), and the runs list showing the new name
 * and note, at 1440 and 420 px.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launchChromium } from "../bench/browser.js";
import { type E2EWorkbench, finishedRun, STEP, shot, startBuiltWorkbench } from "./e2e-harness";

let browser: Browser;
let workbench: E2EWorkbench;
const runs: string[] = [];

beforeAll(async () => {
  chromiumPath();
  workbench = await startBuiltWorkbench("run-names");
  for (let i = 0; i < 2; i++) runs.push(await finishedRun(workbench, { dataset: "penguins", limit: 5 }));
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.close();
});

/** The id of the element that has the focus. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName.toLowerCase()}:${el.getAttribute("name") ?? el.textContent?.trim() ?? ""}` : "";
  });

describe("run names", () => {
  it(
    "renames a run on its page (a bad name refused on its field) and shows the name and note in the runs list",
    async () => {
      for (const [k, width] of [1440, 420].entries()) {
        const id = runs[k];
        const name = `Before the weight swap (${width} px)`;
        const note = `Vendor weights as shipped; the baseline for the next calibration (${width} px).`;
        const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.message));
        await page.goto(`${workbench.url}/runs/${id}`);
        const heading = page.getByRole("heading", { level: 1 });
        await heading.filter({ hasText: "penguins on workbench-latest" }).waitFor({ timeout: STEP });
        // the page drawn whole first (the screenshots show it)
        await page.getByText("Reliability of species, test split").waitFor({ timeout: STEP });

        const rename = page.getByRole("button", { name: "Rename", exact: true });
        await rename.click();
        expect(await rename.getAttribute("aria-expanded")).toBe("true");
        const form = page.getByRole("form", { name: "Rename the run" });
        const nameField = form.getByLabel("Name");
        expect(await focused(page)).toBe("input:name");

        // too long: refused by the API, said on the field, the field focused and marked invalid
        await nameField.fill("x".repeat(81));
        await form.getByLabel("Note").fill(note);
        await form.getByRole("button", { name: "Save" }).click();
        await form.getByText("Name has 81 characters; give at most 80").waitFor({ timeout: STEP });
        expect(await nameField.getAttribute("aria-invalid")).toBe("true");
        expect(await focused(page)).toBe("input:name");
        await shot(page, `run-names-${width}-refused`);

        await nameField.fill(`  ${name}  `);
        await form.getByRole("button", { name: "Save" }).click();
        await heading.filter({ hasText: name }).waitFor({ timeout: STEP });
        await form.waitFor({ state: "detached" });
        expect(await focused(page)).toBe("button:Rename");
        expect(await rename.getAttribute("aria-expanded")).toBe("false");
        await page.getByText(note).waitFor();
        // the title it had stays as a second line
        await page.getByText("penguins on workbench-latest", { exact: true }).waitFor();
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(wide).toBeLessThanOrEqual(width);
        await shot(page, `run-names-${width}-run`);

        // Escape closes the form without saving, and gives the focus back
        await rename.click();
        await form.getByLabel("Name").fill("not saved");
        await page.keyboard.press("Escape");
        await form.waitFor({ state: "detached" });
        expect(await focused(page)).toBe("button:Rename");
        await heading.filter({ hasText: name }).waitFor();

        await page.getByRole("link", { name: "Runs", exact: true }).first().click();
        const link = page.getByRole("link", { name });
        await link.waitFor({ timeout: STEP });
        expect(await link.getAttribute("href")).toBe(`/runs/${id}`);
        // the note is the row's second line; the checkbox names the run
        const row = page.getByRole("row").filter({ has: link });
        await row.getByText(note).waitFor();
        await row.getByLabel(`Select ${name} (${id}) to compare`).waitFor();
        await shot(page, `run-names-${width}-runs`);
        expect(errors).toEqual([]);
        await page.close();
      }
      const listed =
        await workbench.api<{ id: string; name: string | null; note: string | null }[]>("/api/runs");
      expect(listed.map((r) => r.name).sort()).toEqual([
        "Before the weight swap (1440 px)",
        "Before the weight swap (420 px)",
      ]);
    },
    STEP * 2,
  );
});
