// @vitest-environment node
/**
 * A server's rate limit end to end in Debian's Chromium (playwright-core) against the built API and its embedded
 * reference server: the limit is set in the Server form, shown on the servers e2e.page, and a run on that server
 * shows "waiting for rate limit, N s" in its progress panel, at 1440 and 420 px. Screenshots go to
 * apps/web/screenshots/rate-limit-*.png.
 */

import type { RunSummary, Server } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import { addServerForm, chromiumWorkbench, STEP, shot } from "./e2e-harness";

const e2e = chromiumWorkbench("e2e-rate-limit");

describe("a server's rate limit in Chromium", () => {
  it(
    "is set in the Server form, and a run on the server shows that it waits for it",
    async () => {
      const [embedded] = await e2e.workbench.api<Server[]>("/api/servers");
      const form = await addServerForm(e2e, {
        name: "Limited reference",
        baseUrl: embedded.baseUrl,
        model: "workbench-latest",
      });
      await form.getByLabel("Requests a minute").fill("0");
      await form.getByRole("button", { name: "Add server" }).click();
      // a wrong limit is refused with what would be right
      await e2e.page
        .getByText(/Requests a minute must be a number above 0/)
        .first()
        .waitFor({ timeout: STEP });
      await form.getByLabel("Requests a minute").fill("60");
      await form.getByRole("button", { name: "Add server" }).click();
      await e2e.page.getByText("60 requests a minute").waitFor({ timeout: STEP });
      const limited = (await e2e.workbench.api<Server[]>("/api/servers")).find(
        (s) => s.name === "Limited reference",
      );
      expect(limited?.requestsPerMinute).toBe(60);
      expect(limited?.inputTokensPerMinute).toBeNull();
      await shot(e2e.page, "rate-limit-1440-servers");

      // one request a second with four slots: the last of them waits about three seconds
      const run = await e2e.workbench.api<RunSummary>("/api/runs", {
        method: "POST",
        body: JSON.stringify({
          serverId: limited?.id,
          model: "workbench-latest",
          dataset: "penguins",
          concurrency: 4,
          limit: 20,
        }),
      });
      await e2e.page.goto(`${e2e.workbench.url}/runs/${run.id}`);
      const status = e2e.page.getByRole("status").filter({ hasText: /waiting for rate limit, \d+ s/ });
      await status.waitFor({ timeout: STEP });
      expect(await status.textContent()).toMatch(/^waiting for rate limit, [1-5] s$/);
      await shot(e2e.page, "rate-limit-1440-run");
      await e2e.page.setViewportSize({ width: 420, height: 900 });
      await status.waitFor({ timeout: STEP });
      await shot(e2e.page, "rate-limit-420-run");
      await e2e.workbench.api(`/api/runs/${run.id}/cancel`, { method: "POST", body: "{}" });
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP * 2,
  );
});
