// @vitest-environment node
import type { ServerRuns } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import { deleteSummary, RUNS_NAMED } from "../src/transforms/deleteServer";

function usage(count: number, statuses: ServerRuns["runs"][number]["status"][] = []): ServerRuns {
  const runs = Array.from({ length: Math.min(count, 100) }, (_, i) => ({
    id: `run_${i}`,
    name: i === 0 ? "after the swap" : null,
    dataset: "penguins",
    model: "workbench-latest",
    status: statuses[i] ?? ("done" as const),
    createdAt: "2026-11-26T10:00:00.000Z",
  }));
  return { count, runs };
}

describe("deleteSummary", () => {
  it("says no run uses a server, and the delete is not forced", () => {
    expect(deleteSummary(usage(0))).toEqual({
      lead: "No run uses this server.",
      named: [],
      more: null,
      keep: null,
      cancels: null,
      force: false,
    });
  });

  it("names one run, says its results stay, and forces the delete", () => {
    const s = deleteSummary(usage(1));
    expect(s.lead).toBe("1 run uses this server:");
    expect(s.named.map((r) => r.name)).toEqual(["after the swap"]);
    expect(s.keep).toBe(
      "Its results stay: the run keeps its answers and charts and still shows the server's name.",
    );
    expect(s.force).toBe(true);
  });

  it("names the newest runs and counts the rest, and says which running ones are cancelled", () => {
    const s = deleteSummary(usage(24, ["running", "queued", "done"]));
    expect(s.lead).toBe("24 runs use this server:");
    expect(s.named).toHaveLength(RUNS_NAMED);
    expect(s.more).toBe("and 14 more runs");
    expect(s.keep).toMatch(/^Their results stay/);
    expect(s.cancels).toBe("2 of them are still running and will be cancelled.");
    expect(deleteSummary(usage(11)).more).toBe("and 1 more run");
  });
});
