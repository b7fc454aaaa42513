// @vitest-environment node
/**
 * The workbench in a 420 px window, in Debian's Chromium: no page scrolls sideways (and no visible element passes the
 * window's right edge), every control takes the focus and shows when focused, the chosen run tab stays in view, an
 * answer's details open under its row, the reliability diagram draws its interval bars, and the import panel takes
 * the focus when it opens. Screenshots of every page go to apps/web/screenshots/layout-420-*.png.
 */

import type { ItemReport } from "@decision-workbench/api/shapes";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumWorkbench, STEP, shot } from "./e2e-harness";
import { everyPage, openDrawn, prepareSession, type Session } from "./e2e-pages";

const NARROW = { width: 420, height: 900 };
let session: Session;
const e2e = chromiumWorkbench("e2e-layout", async (wb) => {
  session = await prepareSession(wb);
});

/** A 420 px page of the test's Chromium; its uncaught errors go to `errors`. */
let narrow: Page;
const errors: string[] = [];
beforeAll(async () => {
  narrow = await (await e2e.browser.newContext({ viewport: NARROW })).newPage();
  narrow.on("pageerror", (e) => errors.push(e.message));
}, STEP);
afterAll(async () => {
  await narrow?.context().close();
});

/**
 * How wide the page is, and the visible elements whose right edge passes the window's (an element clipped by a box
 * that scrolls or hides its overflow counts only as far as that box reaches); of a run of nested offenders only the
 * outermost is named, as "tag#id.class "its text"".
 */
async function overflow(page: Page): Promise<{ scrollWidth: number; window: number; offenders: string[] }> {
  return page.evaluate(() => {
    const window = document.documentElement.clientWidth;
    /** The element's visible right edge when it passes the window's, else null. */
    const pastEdge = (el: Element): number | null => {
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden") return null;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) return null;
      let right = box.right;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== "visible")
          right = Math.min(right, p.getBoundingClientRect().right);
      return right > window + 0.5 ? right : null;
    };
    const offenders: string[] = [];
    for (const el of document.body.querySelectorAll("*")) {
      const right = pastEdge(el);
      if (right === null || (el.parentElement && pastEdge(el.parentElement) !== null)) continue;
      const cls = (el.getAttribute("class") ?? "").trim().split(/\s+/).filter(Boolean);
      const text = (el.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
      offenders.push(
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${cls.map((c) => `.${c}`).join("")} "${text}" reaches ${Math.round(right)} px`,
      );
    }
    return { scrollWidth: document.documentElement.scrollWidth, window, offenders };
  });
}

/** The box of the first element `selector` matches, in page coordinates. */
async function pageBox(page: Page, selector: string) {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const b = el.getBoundingClientRect();
      return { top: b.top + scrollY, bottom: b.bottom + scrollY, left: b.left, right: b.right };
    });
}

/** Where the run page's tab `id` is against its tab bar and the window: true when it is wholly in view. */
async function tabInView(page: Page, id: string): Promise<{ inView: boolean; where: string }> {
  return page.locator(`#tab-${id}`).evaluate((tab) => {
    const list = tab.closest('[role="tablist"]') as HTMLElement;
    const t = tab.getBoundingClientRect();
    const l = list.getBoundingClientRect();
    const inView =
      t.left >= l.left - 0.5 &&
      t.right <= l.right + 0.5 &&
      t.left >= 0 &&
      t.right <= document.documentElement.clientWidth;
    return {
      inView,
      where: `tab ${Math.round(t.left)}–${Math.round(t.right)} px, bar ${Math.round(l.left)}–${Math.round(l.right)} px (scrolled ${list.scrollLeft} px)`,
    };
  });
}

describe("the workbench in a 420 px window", () => {
  it(
    "scrolls no page sideways: no element passes the window's right edge",
    async () => {
      const problems: string[] = [];
      for (const visit of everyPage(session)) {
        await openDrawn(narrow, e2e.workbench.url, visit);
        const o = await overflow(narrow);
        if (o.scrollWidth > NARROW.width || o.offenders.length)
          problems.push(
            `${visit.name} (${visit.path}): page ${o.scrollWidth} px wide in a ${o.window} px window; past the edge: ${o.offenders.join("; ") || "nothing visible"}`,
          );
        await shot(narrow, `layout-420-${visit.name}`);
      }
      expect(problems).toEqual([]);
      expect(errors).toEqual([]);
    },
    STEP * 3,
  );

  it(
    "lets the keyboard reach every control: each takes the focus and is in the window when focused",
    async () => {
      const problems: string[] = [];
      for (const visit of everyPage(session)) {
        await openDrawn(narrow, e2e.workbench.url, visit);
        const out = await narrow.evaluate(() => {
          const controls =
            'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';
          const bad: string[] = [];
          for (const el of document.querySelectorAll<HTMLElement>(controls)) {
            const style = getComputedStyle(el);
            if (style.display === "none" || style.visibility === "hidden" || !el.getClientRects().length)
              continue;
            if (el.tagName !== "SUMMARY" && el.closest("details:not([open])")) continue;
            const name = `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute("aria-label") || el.getAttribute("value") || "").trim().slice(0, 30)}"`;
            el.focus();
            if (document.activeElement !== el) {
              bad.push(`${name} does not take the focus`);
              continue;
            }
            // a visually hidden radio shows its focus on its label
            const shown = style.opacity === "0" ? (el.closest("label") ?? el) : el;
            const r = shown.getBoundingClientRect();
            let [left, right, top, bottom] = [r.left, r.right, r.top, r.bottom];
            for (let p = el.parentElement; p; p = p.parentElement) {
              const ps = getComputedStyle(p);
              if (ps.overflowX === "visible" && ps.overflowY === "visible") continue;
              const c = p.getBoundingClientRect();
              [left, right, top, bottom] = [
                Math.max(left, c.left),
                Math.min(right, c.right),
                Math.max(top, c.top),
                Math.min(bottom, c.bottom),
              ];
            }
            const w = Math.min(right, innerWidth) - Math.max(left, 0);
            const h = Math.min(bottom, innerHeight) - Math.max(top, 0);
            if (w < 2 || h < 2)
              bad.push(
                `${name} is out of the window when focused (${Math.round(r.left)}, ${Math.round(r.top)})`,
              );
          }
          return bad;
        });
        for (const b of out) problems.push(`${visit.name}: ${b}`);
      }
      expect(problems).toEqual([]);
    },
    STEP * 3,
  );

  it(
    "keeps the chosen run tab in view, on load and when another is chosen",
    async () => {
      const { url } = e2e.workbench;
      await openDrawn(narrow, url, {
        name: "items",
        path: `/runs/${session.run}?tab=items&item=species`,
        ready: "#tabpanel .toolbar",
      });
      // the bar is wider than the window: the last tab starts out of view
      const bar = await narrow
        .locator('[role="tablist"]')
        .evaluate((l) => ({ scroll: l.scrollWidth, client: l.clientWidth }));
      expect(bar.scroll).toBeGreaterThan(bar.client);
      let t = await tabInView(narrow, "items");
      expect(t.inView, `Items on load: ${t.where}`).toBe(true);
      // chosen with the keyboard: arrow keys back to Reliability, the first tab, then Enter
      await narrow.locator("#tab-items").focus();
      for (let i = 0; i < 5; i++) await narrow.keyboard.press("ArrowLeft");
      await expect(narrow.evaluate(() => document.activeElement?.id)).resolves.toBe("tab-reliability");
      await narrow.keyboard.press("Enter");
      await narrow.waitForSelector('[data-ready="reliability"]', { timeout: STEP });
      t = await tabInView(narrow, "reliability");
      expect(t.inView, `Reliability after Enter: ${t.where}`).toBe(true);
      // chosen by a click on a tab half out of view: it scrolls in after the tab's page is drawn
      await narrow.locator('[role="tablist"]').evaluate((l) => {
        l.scrollLeft = 0;
      });
      await narrow.locator("#tab-confusion").click();
      await narrow.waitForSelector('[data-ready="confusion"]', { timeout: STEP });
      t = await tabInView(narrow, "confusion");
      expect(t.inView, `Confusion after a click: ${t.where}`).toBe(true);
      await shot(narrow, "layout-420-run-tabs");
      expect(errors).toEqual([]);
    },
    STEP,
  );

  it(
    "opens an answer's details under its row, and beside the list in a wide window",
    async () => {
      const visit = {
        name: "items",
        path: `/runs/${session.multi}?tab=items&filter=all`,
        ready: '[data-ready="items"]',
      };
      await openDrawn(narrow, e2e.workbench.url, visit);
      const buttons = narrow.locator("table.items tbody tr:not(.detail-row) button");
      expect(await buttons.count()).toBeGreaterThan(20);
      const picked = buttons.nth(19);
      const id = (await picked.textContent()) ?? "";
      await picked.click();
      const detail = `section.detail[aria-label="Example ${id}"]`;
      await narrow.waitForSelector(detail, { timeout: STEP });
      const row = await pageBox(narrow, "table.items tbody tr.selected");
      const box = await pageBox(narrow, detail);
      // within one window's height of the row picked (the list alone is several windows long)
      expect(
        box.top - row.bottom,
        `details at ${box.top} px, row ends at ${row.bottom} px`,
      ).toBeGreaterThanOrEqual(-1);
      expect(box.top - row.bottom).toBeLessThan(NARROW.height);
      expect(box.right).toBeLessThanOrEqual(NARROW.width);
      await shot(narrow, "layout-420-item-details");
      // an address naming an example further down (as Compare links to it) opens with its row and details in view
      const far = (await buttons.nth(35).textContent()) ?? "";
      await openDrawn(narrow, e2e.workbench.url, {
        ...visit,
        path: `${visit.path}&example=${encodeURIComponent(far)}`,
        ready: `section.detail[aria-label="Example ${far}"]`,
      });
      const onLoad = await narrow.evaluate(() => ({
        row: (document.querySelector("table.items tr.selected") as Element).getBoundingClientRect().top,
        detail: (document.querySelector("section.detail") as Element).getBoundingClientRect().top,
      }));
      expect(onLoad.row, "the row named in the address").toBeGreaterThanOrEqual(0);
      expect(onLoad.detail, "its details").toBeLessThan(NARROW.height);
      // a wide window keeps the details beside the list, at the top of the split view
      await e2e.page.goto(`${e2e.workbench.url}${visit.path}&example=${encodeURIComponent(id)}`);
      await e2e.page.waitForSelector(detail, { timeout: STEP });
      const wideTable = await pageBox(e2e.page, "table.items");
      const wideDetail = await pageBox(e2e.page, detail);
      expect(wideDetail.left).toBeGreaterThan(wideTable.right);
      expect(errors).toEqual([]);
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP,
  );

  it(
    "draws the reliability diagram's 95% interval bars at their full height, also after the window narrows",
    async () => {
      const report = await e2e.workbench.api<ItemReport>(
        `/api/runs/${session.run}/report?item=species&split=test`,
      );
      // the bins drawn as points, in order, and the height of each one's interval in percentage points
      const expected = report.bins.width
        .filter((b) => b.count > 0 && b.confidence !== null && b.accuracy !== null)
        .map((b) => (b.low === null || b.high === null ? 0 : (b.high - b.low) * 100));
      expect(expected.filter((h) => h >= 2).length).toBeGreaterThan(0);
      const visit = {
        name: "reliability",
        path: `/runs/${session.run}?tab=reliability&item=species`,
        ready: '[data-ready="reliability"] .recharts-errorBar',
      };
      const problems: string[] = [];
      /** Compares each bar's drawn height with its interval on the y axis's scale, as soon as the chart is drawn. */
      const check = async (page: Page, when: string) => {
        const drawn = await page.evaluate(() => {
          const plot = document.querySelector('[data-ready="reliability"] .recharts-surface') as SVGElement;
          const tick = (v: string) => {
            const t = [
              ...plot.querySelectorAll(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value"),
            ].find((n) => n.textContent === v);
            const b = (t as Element).getBoundingClientRect();
            return b.top + b.height / 2;
          };
          const pxPerPoint = (tick("0") - tick("100")) / 100;
          return [...plot.querySelectorAll(".recharts-errorBar")].map(
            (g) => g.getBoundingClientRect().height / pxPerPoint,
          );
        });
        if (drawn.length !== expected.length)
          problems.push(`${when}: ${drawn.length} bars for ${expected.length} points`);
        drawn.forEach((h, i) => {
          // within a point of the interval (the bar's caps and stroke add a little)
          if (Math.abs(h - expected[i]) > 1.5)
            problems.push(
              `${when}: bar ${i + 1} is ${h.toFixed(1)} points tall, its interval ${expected[i].toFixed(1)}`,
            );
        });
      };
      await openDrawn(narrow, e2e.workbench.url, visit);
      await check(narrow, "drawn at 420 px");
      await shot(narrow, "layout-420-reliability-intervals");
      // a wide window narrowed to 420 px: the chart is drawn again at the new width
      const page = await (await e2e.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
      await openDrawn(page, e2e.workbench.url, visit);
      await page.setViewportSize(NARROW);
      await page.waitForFunction(
        () =>
          (document.querySelector('[data-ready="reliability"] .recharts-surface')?.clientWidth ?? 1e9) < 420,
        undefined,
        { timeout: STEP },
      );
      await check(page, "narrowed from 1440 to 420 px");
      await page.context().close();
      expect(problems).toEqual([]);
      expect(errors).toEqual([]);
    },
    STEP,
  );

  it(
    "moves the focus into the import panel when it opens",
    async () => {
      await openDrawn(narrow, e2e.workbench.url, {
        name: "calibrate",
        path: `/runs/${session.other}/calibrate`,
        ready: "main h1",
      });
      await narrow.getByRole("button", { name: "Import calibration file" }).click();
      await narrow.waitForSelector('form[aria-label="Import a calibration file"]', { timeout: STEP });
      const focus = await narrow.evaluate(() => ({
        form: document.activeElement?.closest("form")?.getAttribute("aria-label") ?? null,
        label: document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.tagName,
      }));
      expect(focus).toEqual({ form: "Import a calibration file", label: "Choose a calibration file" });
      // and it is in view
      const box = await narrow.locator('input[aria-label="Choose a calibration file"]').boundingBox();
      expect(box && box.y >= 0 && box.y + box.height <= NARROW.height).toBe(true);
      await shot(narrow, "layout-420-calibrate-import");
      expect(errors).toEqual([]);
    },
    STEP,
  );
});
