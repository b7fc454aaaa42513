/**
 * What the Chromium end-to-end tests share: the built web app (rebuilt when older than its sources), a workbench
 * from the built API on a fresh data directory, its JSON API, runs started and waited for, pages and screenshots.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchChromium } from "../bench/browser.js";

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
export const APPS = join(WEB, "..");
const SHOTS = join(WEB, "screenshots");
/** The time one step (a page drawn, a run finished, a fit) may take. */
export const STEP = 120_000;

/** A workbench from apps/api/dist on its own data directory; `close` stops it and removes the directory. */
export interface E2EWorkbench {
  url: string;
  dataDir: string;
  /** A JSON call to its API; throws with the method, path, status and body when the answer is not 2xx. */
  api<T>(path: string, init?: RequestInit): Promise<T>;
  close(): Promise<void>;
}

type BuiltApi = typeof import("@decision-workbench/api");

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

/** Builds apps/web/dist when it is missing or older than the sources (the API serves it at /). */
async function ensureWebBuild(): Promise<void> {
  const index = join(WEB, "dist", "index.html");
  const sources = Math.max(
    newest(join(WEB, "src")),
    statSync(join(WEB, "index.html")).mtimeMs,
    statSync(join(WEB, "vite.config.ts")).mtimeMs,
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  const { build } = await import("vite");
  await build({ root: WEB, configFile: join(WEB, "vite.config.ts"), logLevel: "warn" });
}

/** Imports a built workspace module, or says which one is not built and how to build it. */
export async function importBuilt<T>(path: string, what: string): Promise<T> {
  if (!existsSync(path))
    throw new Error(
      `${what} is not built (${path} is missing): run \`pnpm build\` from the repository root first`,
    );
  return (await import(path)) as T;
}

/**
 * Builds the web app if needed and starts the built API serving it on a free port, with a fresh data directory
 * named after `name`; `flags` are added to the `serve` flags (e.g. a token, or `no-reference`).
 */
export async function startBuiltWorkbench(
  name: string,
  flags: Parameters<BuiltApi["serveConfig"]>[0] = {},
): Promise<E2EWorkbench> {
  await ensureWebBuild();
  const mod = await importBuilt<BuiltApi>(join(APPS, "api", "dist", "index.js"), "the API (apps/api)");
  const dataDir = mkdtempSync(join(tmpdir(), `workbench-${name}-`));
  const config = {
    ...mod.serveConfig({ port: "0", "data-dir": dataDir, ...flags }, {}),
    webDir: join(WEB, "dist"),
  };
  const started = await mod.startWorkbench(config);
  const url = started.url;
  return {
    url,
    dataDir,
    async api<T>(path: string, init?: RequestInit): Promise<T> {
      const res = await fetch(`${url}${path}`, {
        ...init,
        headers: { "content-type": "application/json", ...(init?.headers ?? {}) },
      });
      if (!res.ok) throw new Error(`${init?.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    async close() {
      await started.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts a run on the workbench's first server (model `workbench-latest`) and waits until it is done. */
export async function finishedRun(wb: E2EWorkbench, body: Record<string, unknown>): Promise<string> {
  const servers = await wb.api<{ id: string }[]>("/api/servers");
  const run = await wb.api<{ id: string }>("/api/runs", {
    method: "POST",
    body: JSON.stringify({ serverId: servers[0].id, model: "workbench-latest", ...body }),
  });
  for (let i = 0; i < 900; i++) {
    const r = await wb.api<{ status: string }>(`/api/runs/${run.id}`);
    if (r.status === "done") return run.id;
    if (r.status === "failed" || r.status === "cancelled") throw new Error(`run ${run.id} ended ${r.status}`);
    await new Promise((f) => setTimeout(f, 200));
  }
  throw new Error(`run ${run.id} did not finish in 180 s`);
}

/** A page at 1440 x 900 whose uncaught errors are pushed onto `pageErrors`. */
async function openPage(browser: Browser, pageErrors: string[]): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  return page;
}

/** A full-page screenshot to apps/web/screenshots/`name`.png, with no hover tooltip and the last paint settled. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.mouse.move(0, 0);
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** A test file's workbench, Chromium and its one page; filled in by the `beforeAll` of {@link chromiumWorkbench}. */
export interface ChromiumWorkbench {
  workbench: E2EWorkbench;
  browser: Browser;
  page: Page;
  /** The page's uncaught errors; a test ends by expecting none. */
  pageErrors: string[];
}

/**
 * Registers the `beforeAll` that starts a workbench named after `name` (then awaits `prepare`, e.g. runs to finish),
 * launches Chromium and opens a 1440 x 900 page, and the `afterAll` that closes both.
 */
export function chromiumWorkbench(
  name: string,
  prepare?: (workbench: E2EWorkbench) => Promise<void>,
): ChromiumWorkbench {
  const s = { pageErrors: [] as string[] } as ChromiumWorkbench;
  beforeAll(async () => {
    s.workbench = await startBuiltWorkbench(name);
    await prepare?.(s.workbench);
    s.browser = await launchChromium();
    s.page = await openPage(s.browser, s.pageErrors);
  }, 300_000);
  afterAll(async () => {
    await s.browser?.close();
    await s.workbench?.close();
  });
  return s;
}

/** Opens the servers page's "Add a server" form and fills a new server's name, base URL and model. */
export async function addServerForm(
  s: ChromiumWorkbench,
  server: { name: string; baseUrl: string; model: string },
): Promise<Locator> {
  await s.page.goto(`${s.workbench.url}/servers`);
  await s.page.getByRole("button", { name: "Add server" }).click();
  const form = s.page.getByRole("form", { name: "Add a server" });
  await form.getByLabel("Name").fill(server.name);
  await form.getByLabel("Base URL").fill(server.baseUrl);
  await form.getByLabel("Models").fill(server.model);
  return form;
}
