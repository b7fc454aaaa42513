// @vitest-environment node
/**
 * axe-core in Debian's Chromium on every page and run tab of the workbench, at 1440 and 420 px: no serious or
 * critical violation. Its source is added to each page as a script (the test's browser context bypasses the app's
 * Content-Security-Policy, `script-src 'self'`, to allow it); a failure lists each violation's rule, impact and
 * elements.
 */

import axeCore from "axe-core";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { chromiumWorkbench, STEP } from "./e2e-harness";
import { everyPage, openDrawn, prepareSession, type Session } from "./e2e-pages";

const BLOCKING = ["serious", "critical"];

let session: Session;
const e2e = chromiumWorkbench("e2e-a11y", async (wb) => {
  session = await prepareSession(wb);
});

/** The page's serious and critical axe-core violations, one line each: rule (impact): elements. */
async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeCore.source });
  return page.evaluate(async (blocking) => {
    const axe = (window as unknown as { axe: typeof axeCore }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => blocking.includes(v.impact ?? ""))
      .map((v) => `${v.id} (${v.impact}, ${v.help}): ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
  }, BLOCKING);
}

describe("axe-core on every page", () => {
  for (const width of [1440, 420]) {
    it(
      `finds no serious or critical violation at ${width} px`,
      async () => {
        const context = await e2e.browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.message));
        const problems: string[] = [];
        for (const visit of everyPage(session)) {
          await openDrawn(page, e2e.workbench.url, visit);
          for (const v of await violations(page)) problems.push(`${visit.name} (${visit.path}): ${v}`);
        }
        await context.close();
        expect(problems).toEqual([]);
        expect(errors).toEqual([]);
      },
      STEP * 3,
    );
  }
});
