// @vitest-environment node
/**
 * Errors and numbers as people read them, in Chromium at 1440 and 420 px: a run that does not exist (a sentence, a
 * way on, no "Try again", the API's words only in the collapsed details), the new-run form refused by the API (the
 * error on the field, rewritten, focused), and a failed check whose reasons carry formatted numbers where the API
 * writes raw floats and bracketed lists.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { chromiumWorkbench, finishedRun, STEP, shot } from "./e2e-harness";

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), "..", "screenshots");
let runId = "";
let failingFile = "";

const s = chromiumWorkbench("errors", async (wb) => {
  runId = await finishedRun(wb, { dataset: "penguins", limit: 60 });
  const cal = await wb.api<{ id: string }>(`/api/runs/${runId}/calibrations`, {
    method: "POST",
    // a target risk every question reaches: each gets an escalation threshold and an answered-alone error
    body: JSON.stringify({ targetRisk: 0.2 }),
  });
  // the fitted file with intervals nothing can stay inside: every question fails the check, and the API's reasons
  // carry its unrounded escalation thresholds ("at confidence >= 0.6740437…")
  const file = await wb.api<{
    questions: Record<string, { metrics?: { after?: Record<string, unknown> } }>;
  }>(`/api/calibrations/${cal.id}/file`);
  for (const q of Object.values(file.questions)) {
    if (!q.metrics?.after) continue;
    q.metrics.after.ece = [0, 0, 0];
    if (q.metrics.after.answered_error) q.metrics.after.answered_error = [0, 0, 0];
  }
  const imported = await wb.api<{ id: string }>("/api/calibrations/import", {
    method: "POST",
    body: JSON.stringify(file),
  });
  failingFile = imported.id;
});

/** The page's text outside collapsed details (what a person reads without opening "Technical details"). */
async function visibleText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const copy = document.body.cloneNode(true) as HTMLElement;
    for (const d of copy.querySelectorAll("details:not([open])")) {
      for (const child of [...d.children]) if (child.tagName !== "SUMMARY") child.remove();
    }
    return copy.textContent ?? "";
  });
}

/** No element wider than the window (no sideways scrolling). */
async function scrollWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

describe("errors people can act on", () => {
  it(
    "a run that does not exist: a sentence and a way on, no Try again, no API words outside the details",
    async () => {
      for (const width of [1440, 420]) {
        await s.page.setViewportSize({ width, height: 900 });
        await s.page.goto(`${s.workbench.url}/runs/run_doesnotexist`);
        const alert = s.page.getByRole("alert");
        await alert
          .getByText("This run does not exist; it may have been deleted.")
          .waitFor({ timeout: STEP });
        expect(await alert.getByRole("button", { name: "Try again" }).count()).toBe(0);
        expect(await alert.getByRole("link", { name: "Go to the Runs page" }).getAttribute("href")).toBe("/");
        const text = await visibleText(s.page);
        expect(text).not.toMatch(/\/api\/|GET |not_found|HTTP 404/);
        // the API's words are there, collapsed
        const details = alert.locator("details.technical-details");
        expect(await details.getAttribute("open")).toBeNull();
        expect(await details.textContent()).toContain("/api/runs");
        expect(await scrollWidth(s.page)).toBeLessThanOrEqual(width);
        await shot(s.page, `errors-${width}-run-not-found`);
        if (width === 1440) {
          await details.locator("summary").click();
          await shot(s.page, "errors-1440-run-not-found-details");
        }
      }
      expect(s.pageErrors).toEqual([]);
    },
    STEP,
  );

  it(
    "the new-run form refused by the API: the error on the field, in the form's words, focused",
    async () => {
      for (const width of [1440, 420]) {
        await s.page.setViewportSize({ width, height: 900 });
        await s.page.goto(`${s.workbench.url}/runs/new`);
        const form = s.page.getByRole("form", { name: "New run" });
        const model = form.getByLabel("Model");
        await model.waitFor({ timeout: STEP });
        expect(await model.inputValue()).toBe("workbench-latest");
        // the server stops offering the model while the form is open: only the API can refuse it
        const servers =
          await s.workbench.api<{ id: string; embedded: boolean; models: string[] }[]>("/api/servers");
        const embedded = servers.find((x) => x.embedded) ?? servers[0];
        await s.workbench.api(`/api/servers/${embedded.id}`, {
          method: "PATCH",
          body: JSON.stringify({ models: ["bayes-1"] }),
        });
        try {
          await form.getByRole("button", { name: "Start run" }).click();
          await s.page.waitForFunction(
            () => document.querySelector('select[name="model"]')?.getAttribute("aria-invalid") === "true",
            undefined,
            { timeout: STEP },
          );
          const errorId = ((await model.getAttribute("aria-describedby")) ?? "").split(" ").pop() ?? "";
          const fieldError = await s.page.locator(`[id="${errorId}"]`).textContent();
          expect(fieldError).toMatch(
            /^The server “.+” does not offer the model “workbench-latest”; pick one/,
          );
          expect(await s.page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("model");
          expect(await form.getByRole("alert").textContent()).toContain("One thing to fix");
          const text = await visibleText(s.page);
          expect(text).not.toMatch(/\/api\/|PATCH|invalid_request|HTTP 400/);
          expect(await scrollWidth(s.page)).toBeLessThanOrEqual(width);
          await model.scrollIntoViewIfNeeded();
          await shot(s.page, `errors-${width}-new-run-refused`);
        } finally {
          await s.workbench.api(`/api/servers/${embedded.id}`, {
            method: "PATCH",
            body: JSON.stringify({ models: embedded.models }),
          });
        }
      }
      // the form's own check: focus moves to the first invalid field, inside the closed server options
      await s.page.goto(`${s.workbench.url}/runs/new`);
      const form = s.page.getByRole("form", { name: "New run" });
      await form.getByLabel("Model").waitFor({ timeout: STEP });
      await form.getByText("Server options").click();
      await form.getByLabel("max_think").fill("-3");
      await form.getByText("Server options").click();
      await form.getByLabel("Limit per split").fill("0");
      await form.getByRole("button", { name: "Start run" }).click();
      expect(await s.page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("limit");
      expect(await form.getByRole("alert").textContent()).toContain("2 things to fix");
      expect(s.pageErrors).toEqual([]);
    },
    STEP,
  );

  it(
    "a failed check: its reasons with formatted numbers, no raw floats or bracketed lists",
    async () => {
      for (const width of [1440, 420]) {
        await s.page.setViewportSize({ width, height: 900 });
        await s.page.goto(`${s.workbench.url}/runs/${runId}/calibrate?check=${failingFile}&checkSplit=test`);
        await s.page.waitForSelector('[data-ready="check"]', { timeout: STEP });
        const verdict = s.page.getByRole("region", { name: "Check result" });
        expect(await verdict.getAttribute("data-verdict")).toBe("fail");
        const reasons = await verdict.getByRole("listitem").allTextContents();
        expect(reasons.length).toBeGreaterThan(0);
        expect(
          reasons.some((r) => /the calibrated ECE, \d+\.\d%, is above the file's interval/.test(r)),
        ).toBe(true);
        // where the API writes "at confidence >= 0.6740437… 0.0345", the threshold to 3 significant digits
        const answered = reasons.find((r) => r.includes("answers given alone"));
        expect(answered).toMatch(/confidence \d\.\d{2,3} or more\), \d+\.\d%, is above/);
        for (const r of reasons) expect(r).not.toMatch(/\d\.\d{5,}|\[|>=/);
        // no unrounded float anywhere on the page (the API's own notes keep to 3 significant digits)
        const text = await visibleText(s.page);
        expect(text).not.toMatch(/\d\.\d{8,}/);
        expect(text).toMatch(/escalate below confidence \d\.\d{2,3}[^\d]/);
        await verdict.scrollIntoViewIfNeeded();
        await shot(s.page, `errors-${width}-check-reasons`);
        // the verdict alone, readable where the whole page is thousands of pixels tall
        await verdict.screenshot({ path: join(SHOTS, `errors-${width}-check-verdict.png`) });
      }
      expect(s.pageErrors).toEqual([]);
    },
    STEP,
  );
});
