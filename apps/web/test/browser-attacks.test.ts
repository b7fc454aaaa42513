// @vitest-environment node
/**
 * Browser attacks on a running workbench, in Debian's Chromium: a page of another site that posts a form, a
 * multipart upload and bodiless actions at the workbench (refused, nothing stored); a page that rebinds its own
 * domain to 127.0.0.1 (refused on the Host); a page that frames the workbench (refused by the policy); and the web
 * app itself under its Content-Security-Policy (no violation while it draws its pages).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { serveConfig, startWorkbench, type Workbench } from "@decision-workbench/api";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launchChromium } from "../bench/browser.js";

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The name the rebinding page uses; Chromium resolves it to 127.0.0.1 (`--host-resolver-rules`). */
const REBOUND = "rebind.attacker.test";

let browser: Browser;
let workbench: Workbench;
let attacker: Server;
let attackerUrl = "";
let dataDir = "";
let attackPage = "";
const requests = new Map<string, string>();
/** [method and path, status] of every request the workbench answered. */
const answered: [string, number][] = [];

function statusesOf(request: string): number[] {
  return answered.filter(([r]) => r === request).map(([, s]) => s);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

/** The attacker's page: a form post, a multipart upload, bodiless actions and a JSON post, all at the workbench. */
function attackHtml(target: string): string {
  return `<!doctype html><title>attacker</title>
<form id="f" method="POST" action="${target}/api/servers" enctype="text/plain" target="sink">
<input name='{"name":"form-attack","baseUrl":"https://x.example","models":["m"],"x":"' value='"}'>
</form><iframe name="sink"></iframe><iframe id="framed" src="${target}/"></iframe>
<script>
(async () => {
  document.getElementById("f").submit();
  const fd = new FormData();
  fd.append("task", JSON.stringify({ name: "upload-attack", description: "x", items: [] }));
  fd.append("file", new Blob(['{"id":"a","state":"x","split":"test","labels":{}}']), "x.jsonl");
  const results = [];
  const shoot = (path, init) => fetch("${target}" + path, { mode: "no-cors", ...init }).then(() => "sent", (e) => String(e));
  results.push(await shoot("/api/datasets", { method: "POST", body: fd }));
  for (const a of ["cancel", "resume", "replay"]) results.push(await shoot("/api/runs/run_x/" + a, { method: "POST" }));
  results.push(await shoot("/api/servers", { method: "POST", headers: { "content-type": "text/plain" },
    body: JSON.stringify({ name: "fetch-attack", baseUrl: "https://x.example", models: ["m"] }) }));
  // A JSON post needs a preflight, which the workbench does not grant: the browser never sends it.
  results.push(await fetch("${target}/api/servers", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "cors-attack", baseUrl: "https://x.example", models: ["m"] }) }).then(() => "sent", (e) => "blocked"));
  document.title = "done " + results.join(",");
})();
</script>`;
}

beforeAll(async () => {
  chromiumPath();
  dataDir = mkdtempSync(join(tmpdir(), "workbench-attacks-"));
  const config = {
    ...serveConfig({ port: "0", "data-dir": dataDir, "no-reference": true }, {}),
    webDir: join(WEB, "dist"),
  };
  // The workbench's own request log: what reached it and what it answered (blocked reads included).
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) {
        const entry = JSON.parse(line) as {
          reqId?: string;
          req?: { method: string; url: string };
          res?: { statusCode: number };
        };
        if (entry.req && entry.reqId) requests.set(entry.reqId, `${entry.req.method} ${entry.req.url}`);
        if (entry.res && entry.reqId) answered.push([requests.get(entry.reqId) ?? "?", entry.res.statusCode]);
      }
      done();
    },
  });
  workbench = await startWorkbench(config, { logger: { level: "info", stream } });
  attacker = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(attackPage);
  });
  attackerUrl = await listen(attacker);
  attackPage = attackHtml(workbench.url);
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => attacker?.close(r));
  await workbench?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function newPage(): Promise<{ page: Page; messages: string[] }> {
  const page = await browser.newPage();
  const messages: string[] = [];
  page.on("console", (m) => messages.push(m.text()));
  return { page, messages };
}

describe("a page of another site", () => {
  it("cannot create, upload or act through forms and simple requests, nor frame the workbench", async () => {
    const { page, messages } = await newPage();
    await page.goto(attackerUrl);
    await page.waitForFunction(() => document.title.startsWith("done"), undefined, { timeout: 30_000 });
    await page.waitForTimeout(300); // the form's own navigation
    // Every simple request reached the workbench and was refused there (the browser then hides the answer).
    expect(statusesOf("POST /api/datasets")).toEqual([403]);
    for (const a of ["cancel", "resume", "replay"])
      expect(statusesOf(`POST /api/runs/run_x/${a}`)).toEqual([403]);
    expect(statusesOf("POST /api/servers")).toEqual([403, 403]); // the form and the text/plain fetch
    expect(await page.title()).toMatch(/,blocked$/); // the JSON post: no preflight grant, never sent
    const names = (await workbench.storage.listServers()).map((s) => s.name);
    expect(names).toEqual([]);
    expect(await workbench.storage.getUpload("upload-attack")).toBeUndefined();
    // The framed workbench is refused by frame-ancestors 'none' / X-Frame-Options: DENY.
    const framed = page
      .frames()
      .find((f) => f.name() !== "sink" && f !== page.mainFrame() && f.url() !== "about:blank");
    expect(framed === undefined || !(await framed.content()).includes("Decision workbench")).toBe(true);
    expect(messages.some((m) => /frame-ancestors|X-Frame-Options/i.test(m))).toBe(true);
    await page.close();
  });

  it("that rebinds its own name to 127.0.0.1 is refused on the Host and reads nothing", async () => {
    const { page } = await newPage();
    const port = new URL(workbench.url).port;
    const res = await page.goto(`http://${REBOUND}:${port}/`);
    expect(res?.status()).toBe(421);
    const read = await page.evaluate(async () => {
      const r = await fetch("/api/servers");
      return { status: r.status, body: await r.text() };
    });
    expect(read.status).toBe(421);
    expect(read.body).toContain("--allow-host");
    await page.close();
  });
});

describe("the web app under its Content-Security-Policy", () => {
  it("draws its pages without a single policy violation", async () => {
    const { page, messages } = await newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const res = await page.goto(`${workbench.url}/`);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    for (const name of ["Datasets", "Servers", "Runs"]) {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();
      await page.waitForLoadState("networkidle");
    }
    await page.goto(`${workbench.url}/datasets/penguins`);
    await page.waitForLoadState("networkidle");
    expect(messages.filter((m) => /Content Security Policy/i.test(m))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
