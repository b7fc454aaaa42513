/**
 * Every page and run tab of the workbench, for the end-to-end tests that visit them all (the 420 px layout and the
 * axe-core accessibility check): the runs, a calibration and an example they need, each page's address and what
 * shows that it is drawn.
 */
import type { ItemsPage } from "@decision-workbench/api/shapes";
import type { Page } from "playwright-core";
import { type E2EWorkbench, finishedRun, STEP } from "./e2e-harness";

/** What the pages show: two runs of penguins, a run of spam-assassin (multi-label), a calibration, an example. */
export interface Session {
  /** penguins, older: the calibration's run and the compare baseline. */
  run: string;
  /** penguins, newer. */
  other: string;
  /** spam-assassin, 40 examples a split: multi-label thresholds and long states. */
  multi: string;
  /** fitted on `run` (every item, auto). */
  calibration: string;
  /** an example of `multi`, the fifth of its items list. */
  example: string;
}

/** Starts the runs and fits the calibration the pages show; for a `chromiumWorkbench` prepare step. */
export async function prepareSession(wb: E2EWorkbench): Promise<Session> {
  const run = await finishedRun(wb, { dataset: "penguins" });
  const other = await finishedRun(wb, { dataset: "penguins" });
  const multi = await finishedRun(wb, { dataset: "spam-assassin", limit: 40 });
  const calibration = (
    await wb.api<{ id: string }>(`/api/runs/${run}/calibrations`, { method: "POST", body: "{}" })
  ).id;
  const items = await wb.api<ItemsPage>(`/api/runs/${multi}/items?filter=all&limit=5`);
  return { run, other, multi, calibration, example: items.rows[4].exampleId };
}

/** A page to visit: a short name (for messages and screenshot names), its address, what shows it is drawn. */
export interface PageVisit {
  name: string;
  path: string;
  ready: string;
}

/** Every page and run tab, with the states that add the most to a page (details open, verdict, import panel). */
export function everyPage(s: Session): PageVisit[] {
  const tab = (t: string, query: string, run = s.run) => ({
    name: `run-${t}`,
    path: `/runs/${run}?tab=${t}&${query}`,
    ready: `[data-ready="${t}"]`,
  });
  return [
    { name: "runs", path: "/", ready: "table.runs" },
    { name: "new-run", path: "/runs/new", ready: "form.run-form" },
    tab("reliability", "item=species"),
    {
      ...tab("reliability", "item=properties&view=classwise", s.multi),
      name: "run-reliability-per-label",
    },
    tab("confidence", "item=species"),
    tab("thresholds", "item=properties", s.multi),
    tab("unknowns", "item=sex"),
    tab("confusion", "item=species"),
    {
      ...tab("items", `filter=all&example=${encodeURIComponent(s.example)}`, s.multi),
      ready: '[data-ready="items"] .detail',
    },
    {
      name: "compare",
      path: `/compare?runs=${s.run},${s.other}`,
      ready: '[data-ready="compare"]',
    },
    {
      name: "calibrate",
      path: `/runs/${s.run}/calibrate?cal=${s.calibration}`,
      ready: '[data-ready="calibration"]',
    },
    {
      name: "calibrate-import",
      path: `/runs/${s.other}/calibrate?import=1`,
      ready: 'form[aria-label="Import a calibration file"]',
    },
    {
      name: "calibrate-check",
      path: `/runs/${s.other}/calibrate?check=${s.calibration}`,
      ready: '[data-ready="check"]',
    },
    { name: "datasets", path: "/datasets", ready: ".dataset-list a" },
    { name: "dataset", path: "/datasets/penguins", ready: '[data-ready="dataset"]' },
    { name: "servers", path: "/servers", ready: '[data-ready="servers"]' },
    { name: "not-found", path: "/no-such-page", ready: "main .state-empty" },
  ];
}

/** Opens `visit` on `url` and waits until it is drawn: its marker shown, nothing loading, two frames painted. */
export async function openDrawn(page: Page, url: string, visit: PageVisit): Promise<void> {
  await page.goto(`${url}${visit.path}`);
  await page.waitForSelector(visit.ready, { timeout: STEP });
  await page.waitForFunction(() => !document.querySelector("main .state-loading"), undefined, {
    timeout: STEP,
  });
  await page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(null)))),
  );
}
