// @vitest-environment node
/**
 * Uploading your own data in Debian's Chromium: a task built in the Datasets page's task builder, its JSONL
 * template downloaded and filled in, the upload listed with the source and licence given; an upload with errors
 * showing each error once, by line; a run on the uploaded dataset (every answer from the reference server's
 * lexical fallback) saying "lexical fallback" where it says who served it (its page, the compare picker). At
 * 1440 and 420 px.
 */
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launchChromium } from "../bench/browser.js";
import { type E2EWorkbench, finishedRun, STEP, shot, startBuiltWorkbench } from "./e2e-harness";

let browser: Browser;
let workbench: E2EWorkbench;

const SOURCE = "Help desk tickets of a test shop, written for this test";
const LICENCE = "CC0-1.0";
const TICKETS = [
  "I was charged twice for my order",
  "My parcel has not arrived after two weeks",
  "Please refund the cancelled subscription",
  "The courier left the box at the wrong door",
  "Invoice 1182 shows the wrong VAT number",
  "Tracking says delivered but nothing came",
];

beforeAll(async () => {
  chromiumPath();
  workbench = await startBuiltWorkbench("upload");
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.close();
});

async function newPage(width: number): Promise<{ page: Page; errors: string[] }> {
  const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { page, errors };
}

/** Opens the upload form and fills the task builder: one choice item "team" (billing, shipping). */
async function buildTask(page: Page, name: string): Promise<void> {
  await page.goto(`${workbench.url}/datasets`);
  await page.getByRole("button", { name: "Upload a dataset" }).click();
  const form = page.getByRole("form", { name: "Upload a dataset" });
  await form.getByLabel("Dataset name").fill(name);
  await form.getByLabel("Description").fill("Which team a help desk ticket goes to.");
  await form.getByLabel("Source", { exact: true }).fill(SOURCE);
  await form.getByLabel("Licence", { exact: true }).fill(LICENCE);
  await form.getByLabel("How the labels were made (optional)").fill("by hand");
  await form.getByLabel("Item name").fill("team");
  await form.getByLabel("Question").fill("Which team should handle this ticket?");
  await form.getByLabel("Kind").selectOption("choice");
  await form
    .getByLabel("Options")
    .fill("billing: payments, invoices and refunds\nshipping: parcels and couriers");
}

/** How many times `text` occurs in the page's visible text. */
async function occurrences(page: Page, text: string): Promise<number> {
  // biome-ignore lint/performance/useDomNodeTextContent: the text shown, not the collapsed task JSON's
  const body = await page.locator("body").innerText();
  return body.split(text).length - 1;
}

/** The widest element's overflow past the viewport (0 when nothing scrolls sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe("uploading your own data", () => {
  it(
    "builds the task in the form, fills its template and lists the upload with the source and licence given",
    async () => {
      for (const width of [1440, 420]) {
        const { page, errors } = await newPage(width);
        const name = `help_desk_${width}`;
        await buildTask(page, name);
        // the task JSON is there for those who want it, collapsed
        const json = page.getByLabel("Task definition (JSON)");
        expect(await json.isVisible()).toBe(false);
        await page.getByText("Task JSON", { exact: true }).click();
        const task = JSON.parse(await json.inputValue());
        expect(task).toEqual({
          name,
          description: "Which team a help desk ticket goes to.",
          provenance: { source: SOURCE, package: "", licence: LICENCE, labels: "by hand" },
          items: [
            {
              name: "team",
              kind: "choice",
              question: "Which team should handle this ticket?",
              options: [
                { name: "billing", description: "payments, invoices and refunds" },
                { name: "shipping", description: "parcels and couriers" },
              ],
            },
          ],
        });
        await page.getByText("Task JSON", { exact: true }).click();
        expect(await overflow(page)).toBe(0);
        await shot(page, `upload-${width}-builder`);

        // the template, made from the built task
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("button", { name: "Download JSONL template" }).click(),
        ]);
        expect(download.suggestedFilename()).toBe(`${name}.jsonl`);
        const template = readFileSync(await download.path(), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        expect(template[0]).toEqual({
          id: "example-1",
          state: "Replace this with the text the service reads for example 1.",
          labels: { team: "billing" },
        });
        // filled in: a state and a label for each of 24 tickets, in the template's shape
        const lines = Array.from({ length: 24 }, (_, i) => {
          const row = structuredClone(template[i % template.length]);
          row.id = `ticket-${i + 1}`;
          row.state = `${TICKETS[i % TICKETS.length]} (ticket ${i + 1})`;
          row.labels.team = i % 2 === 0 ? "billing" : "shipping";
          return JSON.stringify(row);
        });
        await page.getByLabel("Choose an examples file").setInputFiles({
          name: `${name}.jsonl`,
          mimeType: "application/x-ndjson",
          buffer: Buffer.from(`${lines.join("\n")}\n`),
        });
        await page.getByRole("button", { name: "Upload", exact: true }).click();

        await page.waitForURL(`**/datasets/${name}`, { timeout: STEP });
        await page.waitForSelector('[data-ready="dataset"]', { timeout: STEP });
        await page.getByRole("navigation", { name: "Datasets" }).getByText(name).waitFor();
        const facts = page.locator(".dataset-detail .facts");
        expect(await facts.getByText(`${SOURCE} · ${LICENCE}`).count()).toBe(1);
        expect(await overflow(page)).toBe(0);
        await shot(page, `upload-${width}-dataset`);
        expect(errors).toEqual([]);
        await page.close();
      }
    },
    STEP,
  );

  it(
    "shows each error of a refused upload once, by line, as sentences",
    async () => {
      for (const width of [1440, 420]) {
        const { page, errors } = await newPage(width);
        // nothing filled in: each missing field marked once, the focus on the first
        await page.goto(`${workbench.url}/datasets?upload=1`);
        await page.getByRole("button", { name: "Upload", exact: true }).click();
        await page.getByText("7 things to fix before uploading; each is marked on its field.").waitFor();
        expect(await occurrences(page, "Give the dataset a name.")).toBe(1);
        expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("name");

        await buildTask(page, `refused_${width}`);
        await page
          .getByLabel("Examples", { exact: true })
          .fill(
            [
              '{"id": "t1", "state": "charged twice", "labels": {"team": "billing"}}',
              '{"id": "t2", "state": "parcel lost", "labels": {"team": "sales"}}',
              '{"id": "t3", "state": "broken line", "labels": ',
            ].join("\n"),
          );
        await page.getByRole("button", { name: "Upload", exact: true }).click();
        const lines = page.locator(".error-lines li");
        await lines.first().waitFor({ timeout: STEP });
        expect(await lines.allInnerTexts()).toEqual([
          expect.stringMatching(
            /^Line 2, column \d+: "sales" is not an option of team; expected one of .*\.$/,
          ),
          expect.stringMatching(/^Line 3, column \d+: Not valid JSON: .*[.?]$/),
        ]);
        expect(await occurrences(page, "The examples have 2 problems; nothing was stored.")).toBe(1);
        expect(await occurrences(page, '"sales" is not an option')).toBe(1);
        expect(await occurrences(page, "Line 3")).toBe(1);
        expect(await overflow(page)).toBe(0);
        await page.getByRole("alert").scrollIntoViewIfNeeded();
        await shot(page, `upload-${width}-errors`);
        // nothing was stored
        const names = (await workbench.api<{ name: string }[]>("/api/datasets")).map((d) => d.name);
        expect(names).not.toContain(`refused_${width}`);
        expect(errors).toEqual([]);
        await page.close();
      }
    },
    STEP,
  );

  it(
    "says 'lexical fallback' for a run on the upload whose answers all fell back",
    async () => {
      const id = await finishedRun(workbench, { dataset: "help_desk_1440" });
      // the data: every reply named the checkpoint asked for and the lexical fallback
      const run = await workbench.api<{ servedBy: string[] }>(`/api/runs/${id}`);
      expect(run.servedBy).toEqual(["bayes-2+lexical"]);
      // and a run on a bundled dataset, which bayes-2 answers itself
      const bundled = await finishedRun(workbench, { dataset: "penguins", limit: 5 });
      for (const width of [1440, 420]) {
        const { page, errors } = await newPage(width);
        await page.goto(`${workbench.url}/runs/${id}`);
        const served = page
          .locator(".facts div")
          .filter({ has: page.getByText("Served by", { exact: true }) });
        await served.locator("dd").waitFor({ timeout: STEP });
        expect((await served.locator("dd").textContent())?.trim()).toBe("lexical fallback");
        expect(await occurrences(page, "bayes-2+lexical")).toBe(0);
        await page.waitForSelector('[data-ready="reliability"]', { timeout: STEP });
        await shot(page, `upload-${width}-run`);
        // the compare picker says the same, next to the run bayes-2 served
        await page.goto(`${workbench.url}/compare`);
        const cell = (runId: string) => page.locator(`tr[data-run="${runId}"] td[data-label="Served by"]`);
        await cell(id).waitFor({ timeout: STEP });
        expect((await cell(id).textContent())?.trim()).toBe("lexical fallback");
        expect((await cell(bundled).textContent())?.trim()).toBe("bayes-2");
        await shot(page, `upload-${width}-compare`);
        expect(errors).toEqual([]);
        await page.close();
      }
    },
    STEP,
  );
});
