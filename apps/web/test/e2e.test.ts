// @vitest-environment node
/**
 * End to end in Debian's Chromium (playwright-core) against the real API, its embedded reference server and a
 * second reference server whose `workbench-latest` alias serves the other checkpoint: first run, live progress
 * over SSE, reliability with both binnings, every tab, a calibration fitted and downloaded, the second server
 * added through the Servers page, a second run, the comparison with its served-model banner, the downloaded file
 * imported and both runs checked against it (the swapped weights fail, the original run passes), the datasets page.
 * Screenshots of every page go to apps/web/screenshots/.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launchChromium } from "../bench/browser.js";
import {
  APPS,
  type E2EWorkbench,
  importBuilt,
  STEP,
  shot as shotOf,
  startBuiltWorkbench,
} from "./e2e-harness";

interface DecisionServer {
  url: string;
  close(): Promise<void>;
}

let browser: Browser;
let context: BrowserContext;
let page: Page;
let workbench: E2EWorkbench;
let second: DecisionServer;
const eventStreams: string[] = [];
const pageErrors: string[] = [];
/** Console messages about the Content-Security-Policy: every page, chart and download must pass it. */
const policyViolations: string[] = [];
let firstRun = "";
let secondRun = "";
/** The calibration file downloaded from the first run (its text). */
let calibrationFile = "";

const shot = (name: string) => shotOf(page, name);

async function openTab(name: string, ready: string): Promise<void> {
  await page.getByRole("tab", { name }).click();
  try {
    await page.waitForSelector(`[data-ready="${ready}"]`, { timeout: 30_000 });
  } catch (err) {
    await page.screenshot({ path: join(tmpdir(), `workbench-e2e-${ready}.png`), fullPage: true });
    throw new Error(
      `the ${name} tab did not draw (${page.url()}); screenshot in ${tmpdir()}: ${(err as Error).message}`,
    );
  }
}

async function pickItem(item: string): Promise<void> {
  await page.getByLabel("Item").first().selectOption(item);
  await page.waitForURL(new RegExp(`[?&]item=${item}(&|$)`), { timeout: STEP });
}

async function nav(name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();
}

beforeAll(async () => {
  chromiumPath(); // fails first, before the builds, when the browser is missing
  const ds = await importBuilt<{
    startDecisionServer(o: { port: number; alias: string }): Promise<DecisionServer>;
  }>(
    join(APPS, "decision-server", "dist", "index.js"),
    "the reference decision server (apps/decision-server)",
  );
  workbench = await startBuiltWorkbench("e2e");
  // The same checkpoints, but the alias `workbench-latest` resolves to the older bayes-1: "the service swapped its weights".
  second = await ds.startDecisionServer({ port: 0, alias: "bayes-1" });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
  page.on("request", (r) => {
    if (/\/api\/runs\/[^/]+\/events/.test(r.url())) eventStreams.push(r.url());
  });
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) policyViolations.push(m.text());
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await second?.close();
  await workbench?.close();
});

describe("the workbench in Chromium", () => {
  it(
    "starts the first run from the empty start page and follows its progress live",
    async () => {
      await page.goto(workbench.url);
      await page.getByRole("heading", { name: "Start your first run" }).waitFor();
      // the call to action is pre-filled: a bundled dataset, the embedded server, its alias model
      expect(await page.getByLabel("Dataset").inputValue()).toBe("penguins");
      expect(await page.getByLabel("Decision server").inputValue()).toMatch(/^srv_/);
      expect(await page.getByLabel("Model").inputValue()).toBe("workbench-latest");
      await shot("01-first-run");
      await page.getByRole("button", { name: "Start your first run" }).click();
      await page.waitForURL(/\/runs\/run_[^/?]+$/, { timeout: STEP });
      firstRun = new URL(page.url()).pathname.split("/").pop() ?? "";
      await page.waitForSelector('[data-ready="reliability"]', { timeout: STEP });
      // the page followed the run over Server-Sent Events until `done`
      expect(eventStreams.some((u) => u.includes(`/api/runs/${firstRun}/events`))).toBe(true);
      expect(await page.locator(".badge-done").first().textContent()).toBe("Done");
    },
    STEP,
  );

  it(
    "shows the reliability diagram and switches binning and bin count through the URL",
    async () => {
      await page.locator(".recharts-surface").first().waitFor();
      await page.getByText("ECE (equal-width, 15 bins)").waitFor();
      await shot("03-reliability");
      await page.locator("label", { hasText: "Equal mass" }).click();
      await page.waitForURL(/binning=mass/);
      await page.getByText("ECE (equal-mass, 15 bins)").waitFor({ timeout: STEP });
      await page.getByLabel("Bins").selectOption("10");
      await page.waitForURL(/bins=10/);
      await page.getByText("ECE (equal-mass, 10 bins)").waitFor({ timeout: STEP });
      await shot("04-reliability-equal-mass");
      // the link alone restores the view
      await page.reload();
      await page.getByText("ECE (equal-mass, 10 bins)").waitFor({ timeout: STEP });
      await page.locator("label", { hasText: "Per option" }).click();
      await page.waitForSelector(".chart-small", { timeout: STEP });
      await shot("05-reliability-per-option");
      await page.locator("label", { hasText: "Top label" }).click();
      await page.locator("label", { hasText: "Equal width" }).click();
    },
    STEP,
  );

  it(
    "shows confidence, unknowns, confusion and items",
    async () => {
      await openTab("Confidence", "confidence");
      await page.getByText("Brier score").waitFor();
      await shot("06-confidence");
      await pickItem("sex");
      await openTab("Unknowns", "unknowns");
      await page.getByText("Gold Unknown rate").waitFor();
      await page
        .getByText(/answered alone/)
        .first()
        .waitFor();
      await shot("08-unknowns");
      await pickItem("species");
      await openTab("Confusion", "confusion");
      await shot("09-confusion");
      await page.getByRole("tab", { name: "Items" }).click();
      await page.locator("label", { hasText: /^All$/ }).click();
      await page.waitForSelector('[data-ready="items"]', { timeout: STEP });
      await page.locator("table.items button").first().click();
      await page.getByRole("heading", { name: "Probabilities" }).waitFor();
      await page.getByRole("heading", { name: "Reasoning" }).waitFor();
      expect(page.url()).toMatch(/example=/);
      await shot("10-items");
    },
    STEP,
  );

  it(
    "fits a calibration and downloads the file",
    async () => {
      await page.getByRole("link", { name: /Fit a calibration/ }).click();
      await page.getByRole("button", { name: "Fit calibration" }).click();
      await page.waitForSelector('[data-ready="calibration"]', { timeout: STEP });
      await page.getByText("chosen").first().waitFor();
      await page.getByLabel("Item", { exact: true }).selectOption("body_mass");
      await page.waitForURL(/item=body_mass/);
      await page.getByText("Reliability of body_mass before and after").waitFor({ timeout: STEP });
      await shot("11-calibrate");
      const [download] = await Promise.all([
        page.waitForEvent("download", { timeout: STEP }),
        page.getByRole("link", { name: "Download calibration file" }).click(),
      ]);
      calibrationFile = readFileSync((await download.path()) as string, "utf8");
      const file = JSON.parse(calibrationFile) as {
        schema: string;
        source: { served_by: string[]; dataset: { name: string } };
        questions: Record<string, { method: string }>;
      };
      expect(file.schema).toBe("decision-workbench/calibration@1");
      expect(file.source.served_by).toEqual(["bayes-2"]);
      expect(file.source.dataset.name).toBe("penguins");
      expect(Object.keys(file.questions).sort()).toEqual(["body_mass", "sex", "species"]);
    },
    STEP,
  );

  it(
    "adds the second server through the Servers page and checks it",
    async () => {
      await nav("Servers");
      await page.getByRole("button", { name: "Add server" }).click();
      const form = page.getByRole("form", { name: "Add a server" });
      await form.getByRole("button", { name: "Add server" }).click();
      await page.getByText(/things to fix/).waitFor();
      await form.getByLabel("Name").fill("Reference server, older weights");
      await form.getByLabel("Base URL").fill(second.url);
      await form.getByLabel("Models").fill("workbench-latest");
      await form.getByLabel("API key").fill("not-needed-but-write-only");
      await form.getByRole("button", { name: "Add server" }).click();
      const card = page.getByRole("listitem", { name: "Reference server, older weights" });
      await card.waitFor({ timeout: STEP });
      // the form closes once saved: from then on the key is nowhere in the page
      await form.waitFor({ state: "detached", timeout: STEP });
      expect(await card.textContent()).toContain("key set");
      expect(await page.content()).not.toContain("not-needed-but-write-only");
      await card.getByRole("button", { name: "Check" }).click();
      await card.locator(".check-result").waitFor({ timeout: STEP });
      expect(await card.locator(".check-result").textContent()).toContain("bayes-1");
      await shot("12-servers");
    },
    STEP,
  );

  it(
    "runs the same examples against the swapped weights",
    async () => {
      await page.goto(`${workbench.url}/runs/new?dataset=penguins`);
      await page.getByLabel("Decision server").selectOption({ label: "Reference server, older weights" });
      expect(await page.getByLabel("Model").inputValue()).toBe("workbench-latest");
      await page.getByText("Server options").click();
      await page.getByLabel("max_think").waitFor();
      await shot("13-new-run");
      await page.getByRole("button", { name: "Start run" }).click();
      await page.waitForURL(/\/runs\/run_[^/?]+$/, { timeout: STEP });
      secondRun = new URL(page.url()).pathname.split("/").pop() ?? "";
      expect(secondRun).not.toBe(firstRun);
      await page.waitForSelector('[data-ready="reliability"]', { timeout: STEP });
    },
    STEP,
  );

  it(
    "compares the two runs and shows the served-model banner",
    async () => {
      await nav("Runs");
      await page.getByLabel(`Select ${firstRun} to compare`).check();
      await page.getByLabel(`Select ${secondRun} to compare`).check();
      await page.getByRole("button", { name: /Compare selected/ }).click();
      await page.waitForSelector('[data-ready="compare"]', { timeout: STEP });
      const text = (await page.getByTestId("served-model-banner").textContent()) ?? "";
      expect(text).toContain("Served model differs");
      expect(text).toContain(`${firstRun} asked for workbench-latest and was served by bayes-2`);
      expect(text).toContain(`${secondRun} asked for workbench-latest and was served by bayes-1`);
      expect(page.url()).toContain(`runs=${firstRun},${secondRun}`);
      await page.getByLabel("Item").selectOption("body_mass");
      await page.waitForURL(/item=body_mass/);
      await page.getByRole("heading", { name: /Flipped answers \([1-9]/ }).waitFor({ timeout: STEP });
      await shot("15-compare");
    },
    STEP,
  );

  it(
    "imports the downloaded calibration file and checks both runs against it",
    async () => {
      // from the second run's header: its accuracy is labelled as the run's, over all items
      await page.goto(`${workbench.url}/runs/${secondRun}`);
      await page.waitForSelector('[data-ready="reliability"]', { timeout: STEP });
      await page.getByText("Accuracy, all items").waitFor();
      await page.getByText("Accuracy, species").waitFor();
      await page.getByRole("link", { name: "Check against a calibration" }).click();
      await page.waitForURL(new RegExp(`/runs/${secondRun}/calibrate#check$`), { timeout: STEP });
      await page.getByRole("button", { name: "Import calibration file" }).click();
      await page.waitForURL(/import=1/);
      const form = page.getByRole("form", { name: "Import a calibration file" });
      // a broken file: every problem the API finds is listed, and nothing is imported
      const broken = JSON.parse(calibrationFile) as {
        source: Record<string, unknown>;
        questions: Record<string, Record<string, unknown>>;
      };
      broken.source.served_by = "bayes-2";
      broken.questions.species.options = "Adelie";
      await form.getByLabel("Calibration file (JSON)").fill(JSON.stringify(broken, null, 2));
      await form.getByRole("button", { name: "Import calibration file" }).click();
      const problems = form.locator(".error-lines li");
      await problems.first().waitFor({ timeout: STEP });
      expect(await problems.allTextContents()).toEqual([
        'source.served_by: "bayes-2"; expected an array of model names',
        'questions.species.options: "Adelie"; expected a non-empty array of option names',
      ]);
      expect(await form.getByRole("alert").textContent()).toContain("Nothing was imported.");
      await shot("19-calibration-import-errors");
      // the file as downloaded, through the file picker
      const path = join(workbench.dataDir, "calibration-download.json");
      writeFileSync(path, calibrationFile);
      await form.getByLabel("Choose a calibration file").setInputFiles(path);
      await form.getByText("calibration-download.json").waitFor();
      await form.getByRole("button", { name: "Import calibration file" }).click();
      const status = form.getByRole("status");
      await status.waitFor({ timeout: STEP });
      const imported = /Imported as (cal_\S+):/.exec((await status.textContent()) ?? "")?.[1] ?? "";
      expect(imported).toMatch(/^cal_/);
      // the file just imported is picked; the run on the swapped weights fails the check
      const check = page.getByRole("form", { name: "Check against a calibration" });
      expect(await check.getByLabel("Calibration").inputValue()).toBe(imported);
      await check.getByRole("button", { name: "Check" }).click();
      await page.waitForSelector('[data-ready="check"]', { timeout: STEP });
      const verdict = page.getByRole("region", { name: "Check result" });
      expect(await verdict.getAttribute("data-verdict")).toBe("fail");
      const failText = (await verdict.textContent()) ?? "";
      expect(failText).toContain(
        "Changed: the file was fitted on answers of bayes-2; this run was served by bayes-1.",
      );
      expect(failText).toContain("the service swapped its weights");
      expect(page.url()).toContain(`check=${imported}`);
      await verdict.scrollIntoViewIfNeeded();
      await shot("20-check-fail");
      // the run the file was fitted on passes: same served model, every question inside the file's intervals
      await page.goto(`${workbench.url}/runs/${firstRun}/calibrate`);
      await page.waitForSelector('[data-ready="calibration"]', { timeout: STEP });
      const check1 = page.getByRole("form", { name: "Check against a calibration" });
      await check1.getByLabel("Calibration").selectOption(imported);
      await check1.getByRole("button", { name: "Check" }).click();
      await page.waitForSelector('[data-ready="check"]', { timeout: STEP });
      const pass = page.getByRole("region", { name: "Check result" });
      expect(await pass.getAttribute("data-verdict")).toBe("pass");
      expect(await pass.textContent()).toContain("Unchanged: bayes-2 served this run, as in the file.");
      expect(await pass.getByText("✓ pass", { exact: true }).count()).toBe(3);
      await shot("21-check-pass");
      // the link alone brings the verdict back
      await page.reload();
      await page.waitForSelector('[data-ready="check"][data-verdict="pass"]', { timeout: STEP });
    },
    STEP,
  );

  it(
    "shows a multi-label item's thresholds while a larger run streams its progress",
    async () => {
      await page.goto(`${workbench.url}/runs/new?dataset=spam-assassin`);
      await page.getByLabel("Limit per split").fill("60");
      await page.getByRole("button", { name: "Start run" }).click();
      await page.waitForURL(/\/runs\/run_[^/?]+$/, { timeout: STEP });
      await page.getByRole("region", { name: "Run progress" }).waitFor({ timeout: STEP });
      await shot("02-run-progress");
      await page.waitForSelector('[data-ready="reliability"]', { timeout: STEP });
      await pickItem("properties");
      await openTab("Thresholds", "thresholds");
      await page.getByText("Micro F1").first().waitFor();
      await shot("07-thresholds");
      await nav("Runs");
      await page.locator("table.runs tbody tr").nth(2).waitFor();
      await shot("14-runs");
    },
    STEP,
  );

  it(
    "browses datasets and lists upload errors by line",
    async () => {
      await nav("Datasets");
      await page.getByRole("link", { name: /penguins/ }).click();
      await page.waitForSelector('[data-ready="dataset"]', { timeout: STEP });
      await page.getByText("Label counts per split").waitFor();
      await shot("16-datasets");
      await page.getByRole("button", { name: "Upload a dataset" }).click();
      const task = {
        name: "tiny",
        description: "two examples",
        provenance: { source: "test", package: "none", licence: "CC0", labels: "by hand" },
        items: [{ name: "ok", kind: "yesno", question: "Is it ok?" }],
      };
      // the task as JSON, pasted in the builder's collapsed "Task JSON" section
      await page.getByText("Task JSON", { exact: true }).click();
      await page.getByRole("textbox", { name: "Task definition (JSON)" }).fill(JSON.stringify(task));
      await page
        .getByRole("textbox", { name: "Examples" })
        .fill(
          '{"id":"a","state":"fine","labels":{"ok":"yes"}}\n{"id":"b","state":"bad","labels":{"ok":"perhaps"}}\n',
        );
      await page.getByRole("button", { name: "Upload", exact: true }).click();
      const errors = page.locator(".error-lines li");
      await errors.first().waitFor({ timeout: STEP });
      expect(await errors.first().textContent()).toMatch(/^Line 2\b/);
      await shot("17-dataset-upload-errors");
    },
    STEP,
  );

  it(
    "stays readable in a narrow window",
    async () => {
      await page.setViewportSize({ width: 420, height: 900 });
      const res = await page.goto(`${workbench.url}/runs/${firstRun}`);
      expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
      await page.waitForSelector('[data-ready="reliability"]', { timeout: STEP });
      await shot("18-narrow-reliability");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(pageErrors).toEqual([]);
      expect(policyViolations).toEqual([]);
    },
    STEP,
  );
});
