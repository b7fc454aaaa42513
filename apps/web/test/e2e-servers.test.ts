// @vitest-environment node
/**
 * The servers page in Debian's Chromium (playwright-core) against the built API and its embedded reference server:
 * "Check server" in the Server form lists the models to tick, an invalid submit puts its problems on the fields
 * and the focus on the first, and deleting a server a run uses asks in an in-page dialog that names the run
 * (Escape cancels, the focus comes back; confirming deletes and the run stays), at 1440 and 420 px. Screenshots go
 * to apps/web/screenshots/servers-*.png.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Server } from "@decision-workbench/api/shapes";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { chromiumWorkbench, type E2EWorkbench, STEP, shot } from "./e2e-harness";

const USED = "Older weights";
const RUN_NAME = "before the swap";
let runId = "";
let usedId = "";

/** A server on the embedded reference server and one finished, named run on it. */
async function serverWithRun(wb: E2EWorkbench): Promise<void> {
  const [embedded] = await wb.api<Server[]>("/api/servers");
  const used = await wb.api<Server>("/api/servers", {
    method: "POST",
    body: JSON.stringify({ name: USED, baseUrl: embedded.baseUrl, models: ["workbench-latest"] }),
  });
  const run = await wb.api<{ id: string }>("/api/runs", {
    method: "POST",
    body: JSON.stringify({ dataset: "penguins", serverId: used.id, model: "workbench-latest", limit: 4 }),
  });
  runId = run.id;
  usedId = used.id;
  await wb.api(`/api/runs/${run.id}`, { method: "PATCH", body: JSON.stringify({ name: RUN_NAME }) });
  for (let i = 0; i < 600; i++) {
    const r = await wb.api<{ status: string }>(`/api/runs/${run.id}`);
    if (r.status === "done") return;
    if (r.status === "failed" || r.status === "cancelled") throw new Error(`run ${run.id} ended ${r.status}`);
    await new Promise((f) => setTimeout(f, 200));
  }
  throw new Error(`run ${run.id} did not finish in 120 s`);
}

const e2e = chromiumWorkbench("e2e-servers", serverWithRun);

const AXE_SOURCE = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve("axe-core")), "axe.min.js"),
  "utf8",
);

/** axe-core's serious and critical violations on the page as it is, one line each: rule (impact): elements. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] };
    const axe = (window as unknown as { axe: { run(c: Document, o: object): Promise<Result> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.map(String).join(" ")).join(" | ")}`);
  });
}

/** The page's widest element against the viewport: nothing may scroll sideways. */
async function scrollWidth(): Promise<number> {
  return e2e.page.evaluate(() => document.documentElement.scrollWidth);
}

/** The `name` attribute of the focused element ("" when it has none). */
async function focusedName(): Promise<string> {
  return e2e.page.evaluate(() => document.activeElement?.getAttribute("name") ?? "");
}

describe("the servers page in Chromium", () => {
  it(
    "lists the models a check finds in the Server form, and a model ticked there is saved",
    async () => {
      const { page, workbench } = e2e;
      const [embedded] = await workbench.api<Server[]>("/api/servers");
      for (const width of [1440, 420]) {
        await page.setViewportSize({ width, height: 900 });
        const name = `Checked at ${width}`;
        await page.goto(`${workbench.url}/servers`);
        await page.getByRole("button", { name: "Add server" }).click();
        const form = page.getByRole("form", { name: "Add a server" });
        // the opened form has the focus
        await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "name");
        await form.getByLabel("Name").fill(name);
        await form.getByLabel("Base URL").fill(embedded.baseUrl);
        // no model typed: the check asks the server which it serves
        await form.getByRole("button", { name: "Check server" }).click();
        const pick = form.getByRole("checkbox", { name: "workbench-latest" });
        await pick.waitFor({ timeout: STEP });
        const listed = form.getByRole("group", { name: "Models the server lists" });
        expect(await listed.getByRole("checkbox").count()).toBeGreaterThan(0);
        expect(await form.getByRole("status").textContent()).toMatch(/The server lists \d+ models?/);
        expect(await form.getByLabel("Models", { exact: true }).inputValue()).toBe("");
        await pick.check();
        expect(await form.getByLabel("Models", { exact: true }).inputValue()).toBe("workbench-latest");
        expect(await scrollWidth()).toBeLessThanOrEqual(width);
        await shot(page, `servers-${width}-check`);
        await form.getByRole("button", { name: "Add server" }).click();
        const card = page.getByRole("listitem", { name });
        await card.waitFor({ timeout: STEP });
        const saved = (await workbench.api<Server[]>("/api/servers")).find((s) => s.name === name);
        expect(saved?.models).toEqual(["workbench-latest"]);
        // the saved server's own check says in words what answered, with the models it lists
        await card.getByRole("button", { name: "Check" }).click();
        const result = card.getByRole("status");
        await result.getByText(/A test question to workbench-latest was answered/).waitFor({ timeout: STEP });
        expect(await result.getByRole("list", { name: "Models the server lists" }).textContent()).toContain(
          "workbench-latest",
        );
        await card.scrollIntoViewIfNeeded();
        await shot(page, `servers-${width}-card-check`);
      }
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP,
  );

  it(
    "puts each problem of an invalid submit on its field and moves the focus to the first",
    async () => {
      const { page, workbench } = e2e;
      for (const width of [1440, 420]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${workbench.url}/servers?edit=new`);
        const form = page.getByRole("form", { name: "Add a server" });
        await form.getByLabel("Base URL").fill("decide.example.com");
        await form.getByLabel("Timeout (s)").fill("7200");
        await form.getByRole("button", { name: "Add server" }).click();
        await form.getByText(/3 things to fix|4 things to fix/).waitFor({ timeout: STEP });
        // the focus is on the first field with a problem, which says what is wrong under it
        expect(await focusedName()).toBe("name");
        const nameField = form.getByLabel("Name");
        expect(await nameField.getAttribute("aria-invalid")).toBe("true");
        const described = (await nameField.getAttribute("aria-describedby")) ?? "";
        const said = await page.evaluate(
          (ids) => ids.map((id) => document.getElementById(id)?.textContent ?? "").join(" "),
          described.split(" "),
        );
        expect(said).toContain("Give the server a name");
        const timeout = form.getByLabel("Timeout (s)");
        expect(await timeout.getAttribute("aria-invalid")).toBe("true");
        await form.getByText("Timeout must be 3,600 or less, got 7200").last().waitFor();
        // nothing of the API's own words (paths, codes) is in sight (innerText: a collapsed details' text is not)
        // biome-ignore lint/performance/useDomNodeTextContent: what is rendered is the point here
        expect(await form.innerText()).not.toMatch(/body\.|invalid_request|HTTP \d{3}|\/api\//);
        expect(await scrollWidth()).toBeLessThanOrEqual(width);
        await shot(page, `servers-${width}-errors`);
        // fixed in order: the next submit moves the focus to the next field with a problem
        await nameField.fill("Typed by hand");
        await form.getByRole("button", { name: "Add server" }).click();
        await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "baseUrl");
      }
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP,
  );

  it(
    "has no serious accessibility violation with the check's model list, field errors or the delete dialog open",
    async () => {
      const [embedded] = await e2e.workbench.api<Server[]>("/api/servers");
      const problems: string[] = [];
      for (const width of [1440, 420]) {
        // the page's policy allows only its own scripts: this context lets axe-core's be injected
        const context = await e2e.browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
        const page = await context.newPage();
        await page.goto(`${e2e.workbench.url}/servers?edit=new`);
        const form = page.getByRole("form", { name: "Add a server" });
        await form.getByLabel("Base URL").fill(embedded.baseUrl);
        await form.getByLabel("Timeout (s)").fill("0");
        await form.getByRole("button", { name: "Check server" }).click();
        await form.getByRole("checkbox", { name: "workbench-latest" }).waitFor({ timeout: STEP });
        await form.getByRole("button", { name: "Add server" }).click();
        await form.getByText(/things to fix/).waitFor({ timeout: STEP });
        for (const v of await axeViolations(page)) problems.push(`${width} px, form: ${v}`);
        await page.getByRole("listitem", { name: USED }).getByRole("button", { name: "Delete" }).click();
        const dialog = page.getByRole("alertdialog");
        await dialog.getByRole("link", { name: RUN_NAME }).waitFor({ timeout: STEP });
        for (const v of await axeViolations(page)) problems.push(`${width} px, delete dialog: ${v}`);
        await context.close();
      }
      expect(problems).toEqual([]);
    },
    STEP,
  );

  it(
    "asks before deleting a server a run uses, in a dialog naming the run; Escape cancels, confirming deletes",
    async () => {
      const { page, workbench } = e2e;
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`${workbench.url}/servers`);
      const card = page.getByRole("listitem", { name: USED });
      const del = card.getByRole("button", { name: "Delete" });
      let dialogs = 0;
      page.on("dialog", () => {
        dialogs++;
      });
      const dialog = page.getByRole("alertdialog", { name: `Delete the server “${USED}”?` });
      for (const width of [1440, 420]) {
        await page.setViewportSize({ width, height: 900 });
        await del.click();
        await dialog.waitFor({ timeout: STEP });
        const run = dialog.getByRole("link", { name: RUN_NAME });
        await run.waitFor({ timeout: STEP });
        expect(await run.getAttribute("href")).toBe(`/runs/${runId}`);
        expect(await dialog.textContent()).toContain("1 run uses this server:");
        expect(await dialog.textContent()).toContain("Its results stay");
        // the focus is in the dialog, on Cancel
        expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
        expect(await scrollWidth()).toBeLessThanOrEqual(width);
        await shot(page, `servers-${width}-delete`);
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "detached", timeout: STEP });
        // cancelled: the server stays and the focus is back on its Delete button
        await page.waitForFunction(
          () =>
            document.activeElement?.textContent === "Delete" && document.activeElement.tagName === "BUTTON",
        );
        expect(await card.isVisible()).toBe(true);
        expect((await workbench.api<Server[]>("/api/servers")).map((s) => s.name)).toContain(USED);
      }
      await del.click();
      await dialog.getByRole("link", { name: RUN_NAME }).waitFor({ timeout: STEP });
      await dialog.getByRole("button", { name: "Delete server, keep the runs" }).click();
      await card.waitFor({ state: "detached", timeout: STEP });
      expect(await dialog.count()).toBe(0);
      expect((await workbench.api<Server[]>("/api/servers")).map((s) => s.name)).not.toContain(USED);
      // the run and its results stay
      const run = await workbench.api<{ status: string; name: string | null }>(`/api/runs/${runId}`);
      expect(run).toMatchObject({ status: "done", name: RUN_NAME });
      // the page's heading has the focus once the card is gone; no native confirm was ever shown
      await page.waitForFunction(() => document.activeElement?.tagName === "H1");
      expect(dialogs).toBe(0);
      // a link to edit the deleted server says it is gone instead of showing nothing
      await page.goto(`${workbench.url}/servers?edit=${usedId}`);
      await page.getByText("That server is not here").waitFor({ timeout: STEP });
      await page.getByRole("button", { name: "Close" }).click();
      await page.waitForURL(`${workbench.url}/servers`);
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP,
  );
});
