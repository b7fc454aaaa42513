// @vitest-environment node
/**
 * People's own tokens in Debian's Chromium: a workbench where alice has a token (created with `workbench tokens
 * create`), a run she started and a dataset she uploaded, and the lists naming her, at 1440 and 420 px.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launchChromium } from "../bench/browser.js";
import { APPS, type E2EWorkbench, STEP, shot, startBuiltWorkbench } from "./e2e-harness";

let browser: Browser;
let workbench: E2EWorkbench;
let token: string;

beforeAll(async () => {
  chromiumPath();
  workbench = await startBuiltWorkbench("people");
  // the command a team member is given a token with; the token is its only line on stdout
  token = execFileSync(
    process.execPath,
    [
      join(APPS, "api", "dist", "cli", "main.js"),
      "tokens",
      "create",
      "--name",
      "alice",
      "--data-dir",
      workbench.dataDir,
    ],
    { encoding: "utf8" },
  ).trim();
  const auth = { authorization: `Bearer ${token}` };
  const servers = await workbench.api<{ id: string }[]>("/api/servers", { headers: auth });
  const run = await workbench.api<{ id: string }>("/api/runs", {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      dataset: "penguins",
      serverId: servers[0].id,
      model: "workbench-latest",
      limit: 5,
    }),
  });
  for (let i = 0; i < 300; i++) {
    const r = await workbench.api<{ status: string }>(`/api/runs/${run.id}`, { headers: auth });
    if (r.status === "done") break;
    await new Promise((f) => setTimeout(f, 200));
  }
  // and a dataset she uploaded
  await workbench.api("/api/datasets", {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      task: {
        name: "alices_tickets",
        description: "Which team a ticket goes to.",
        provenance: {
          source: "written for this test",
          package: "none",
          licence: "CC0-1.0",
          labels: "by hand",
        },
        items: [{ name: "team", kind: "choice", question: "Which team?", options: ["billing", "shipping"] }],
      },
      format: "jsonl",
      content: ["billing", "shipping", "billing"]
        .map((team, i) =>
          JSON.stringify({ id: `t${i}`, state: `ticket ${i}`, split: "test", labels: { team } }),
        )
        .join("\n"),
    }),
  });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.close();
});

describe("people's own tokens", () => {
  it(
    "the runs and datasets lists name who started or uploaded them",
    async () => {
      expect(token).toMatch(/^wbt_/);
      for (const width of [1440, 420]) {
        const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.message));
        await page.goto(`${workbench.url}/runs`);
        const field = page.getByLabel("Token (kept for this browser tab only)");
        await field.waitFor({ timeout: 30_000 });
        await field.fill(token);
        await page.getByRole("button", { name: "Use token" }).click();
        await page.getByText("by alice").first().waitFor({ timeout: 30_000 });
        expect(await page.content()).not.toContain(token);
        await shot(page, `people-${width}-runs`);
        await page.getByRole("link", { name: "Datasets" }).first().click();
        await page.getByText("alices_tickets").first().waitFor({ timeout: 30_000 });
        await page.getByText("uploaded by alice").first().waitFor({ timeout: 30_000 });
        await shot(page, `people-${width}-datasets`);
        expect(errors).toEqual([]);
        await page.close();
      }
    },
    STEP,
  );
});
