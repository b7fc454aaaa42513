// @vitest-environment node
/**
 * The cost guard end to end in Debian's Chromium (playwright-core) against the built API and its embedded
 * reference server: prices set in the Server form, the New run form showing the run's estimated tokens and cost
 * before Start is pressed (the same figures POST /api/runs/estimate gives), and a run capped by max input tokens
 * stopping with its spend shown against the cap, at 1440 and 420 px. Screenshots go to
 * apps/web/screenshots/cost-*.png.
 */

import type { RunEstimate, RunSummary, Server } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import { estimateText } from "../src/transforms/cost";
import { addServerForm, chromiumWorkbench, STEP, shot } from "./e2e-harness";

const e2e = chromiumWorkbench("e2e-cost");

describe("the cost guard in Chromium", () => {
  it(
    "shows a run's estimated tokens and cost before it starts, and its spend against a cap once stopped",
    async () => {
      const [embedded] = await e2e.workbench.api<Server[]>("/api/servers");
      const form = await addServerForm(e2e, {
        name: "Priced reference",
        baseUrl: embedded.baseUrl,
        model: "workbench-latest",
      });
      await form.getByLabel("Input price per million tokens").fill("-2");
      await form.getByRole("button", { name: "Add server" }).click();
      await e2e.page
        .getByText(/Input price per million tokens must be a number above 0/)
        .first()
        .waitFor({ timeout: STEP });
      await form.getByLabel("Input price per million tokens").fill("2");
      await form.getByLabel("Output price per million tokens").fill("8");
      await form.getByRole("button", { name: "Add server" }).click();
      await e2e.page.getByText("2 input · 8 output").waitFor({ timeout: STEP });
      const priced = (await e2e.workbench.api<Server[]>("/api/servers")).find(
        (s) => s.name === "Priced reference",
      );
      expect(priced?.inputPricePerMillion).toBe(2);
      expect(priced?.outputPricePerMillion).toBe(8);

      // the New run form on the priced server: the estimate shows before Start is pressed
      await e2e.page.goto(
        `${e2e.workbench.url}/runs/new?dataset=penguins&server=${priced?.id}&model=workbench-latest`,
      );
      const runForm = e2e.page.getByRole("form", { name: "New run" });
      await runForm.getByLabel("Decision server").selectOption(priced?.id ?? "");
      await runForm.getByLabel("Limit per split").fill("20");
      const line = e2e.page.getByTestId("run-estimate").filter({ hasText: /estimated cost/ });
      await line.waitFor({ timeout: STEP });
      const expected = await e2e.workbench.api<RunEstimate>("/api/runs/estimate", {
        method: "POST",
        body: JSON.stringify({
          dataset: "penguins",
          serverId: priced?.id,
          model: "workbench-latest",
          splits: ["calibration", "test"],
          concurrency: 16,
          limit: 20,
          options: { return_reasoning: true },
        }),
      });
      expect(expected.cost).not.toBeNull();
      await e2e.page.getByText(estimateText(expected)).waitFor({ timeout: STEP });
      expect((await e2e.workbench.api<RunSummary[]>("/api/runs")).length).toBe(0); // nothing started
      await shot(e2e.page, "cost-1440-estimate");
      await e2e.page.setViewportSize({ width: 420, height: 900 });
      await line.waitFor({ timeout: STEP });
      await shot(e2e.page, "cost-420-estimate");
      await e2e.page.setViewportSize({ width: 1440, height: 900 });

      // a cap a third of the estimate: the run stops, resumable, with its spend shown against the cap
      const cap = Math.round(expected.inputTokens / 3);
      await runForm.getByLabel("Max input tokens").fill(String(cap));
      await runForm.getByRole("button", { name: "Start run" }).click();
      await e2e.page.getByText("Stopped").first().waitFor({ timeout: STEP });
      await e2e.page
        .getByTestId("run-budget")
        .filter({ hasText: `of ${cap.toLocaleString("en-US")}` })
        .waitFor({
          timeout: STEP,
        });
      const [run] = await e2e.workbench.api<RunSummary[]>("/api/runs");
      expect(run.status).toBe("stopped");
      expect(run.stopReason).toBe("budget");
      expect(run.progress.usage.input_tokens).toBeLessThanOrEqual(cap);
      await shot(e2e.page, "cost-1440-stopped");
      expect(e2e.pageErrors).toEqual([]);
    },
    STEP * 2,
  );
});
