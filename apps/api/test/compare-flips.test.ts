// GET /api/compare over HTTP: the flipped answers come in pages, with each run's confidence and the example's
// position in each run's items list; the first run named is the baseline whatever their age. Runs made by the run
// engine against the real reference server, bayes-1 then a weight swap to bayes-2 on the same endpoint.
import { type DecisionServerHandle, startDecisionServer } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comparison } from "../src/shapes/calibrations.js";
import type { ItemsPage } from "../src/shapes/reports.js";
import type { RunSummary } from "../src/shapes/runs.js";
import { startWorkbench, type Workbench } from "./analysis/harness.js";

let wb: Workbench;
let server: DecisionServerHandle | undefined;
let older: RunSummary;
let newer: RunSummary;

beforeAll(async () => {
  wb = await startWorkbench();
  server = await startDecisionServer({ port: 0, host: "127.0.0.1", alias: "bayes-1" });
  const port = Number(new URL(server.url).port);
  const serverId = await wb.addServer(server.url);
  older = await wb.run({ dataset: "penguins", serverId, model: "workbench-latest", concurrency: 8 });
  await server.close();
  server = await startDecisionServer({ port, host: "127.0.0.1", alias: "bayes-2" });
  newer = await wb.run({ dataset: "penguins", serverId, model: "workbench-latest", concurrency: 8 });
}, 120_000);

afterAll(async () => {
  await wb?.close();
  await server?.close();
});

async function compare(query: string): Promise<Comparison> {
  const r = await wb.get<Comparison>(`/api/compare?${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe("GET /api/compare flipped answers", () => {
  it("pages the flipped answers: the pages put together are the whole list", async () => {
    const runs = `runs=${older.id},${newer.id}&item=body_mass&split=all`;
    const all = await compare(`${runs}&limit=500`);
    expect(all.flipped.total).toBeGreaterThan(6);
    expect(all.flipped.rows).toHaveLength(all.flipped.total);
    const pages: string[] = [];
    for (let offset = 0; offset < all.flipped.total; offset += 4) {
      const page = await compare(`${runs}&offset=${offset}&limit=4`);
      expect(page.flipped.offset).toBe(offset);
      expect(page.flipped.total).toBe(all.flipped.total);
      expect(page.flipped.rows.length).toBe(Math.min(4, all.flipped.total - offset));
      // the metrics do not depend on the page
      expect(page.metrics).toEqual(all.metrics);
      pages.push(...page.flipped.rows.map((r) => r.exampleId));
    }
    expect(pages).toEqual(all.flipped.rows.map((r) => r.exampleId));
    const past = await compare(`${runs}&offset=${all.flipped.total}&limit=4`);
    expect(past.flipped.rows).toEqual([]);
  });

  it("gives each run's confidence and the example's place in that run's items list", async () => {
    const c = await compare(`runs=${older.id},${newer.id}&item=body_mass&split=test&limit=6`);
    expect(c.flipped.rows.length).toBe(6);
    for (const row of c.flipped.rows) {
      expect(row.confidences).toHaveLength(2);
      expect(row.positions).toHaveLength(2);
      if (!row.positions) throw new Error("the compare route gives positions");
      for (const [j, run] of [older, newer].entries()) {
        // the items list with filter all, at the position given, is this example with this answer and confidence
        const items = await wb.get<ItemsPage>(
          `/api/runs/${run.id}/items?item=body_mass&split=test&filter=all&offset=${row.positions?.[j]}&limit=1`,
        );
        expect(items.status).toBe(200);
        const listed = items.body.rows[0];
        expect(listed.exampleId).toBe(row.exampleId);
        expect(listed.answer).toEqual(row.answers[j]);
        expect(listed.status).toBe(row.statuses[j]);
        expect(row.confidences[j]).toBe(listed.confidence);
      }
      const confident = row.confidences.filter((x): x is number => x !== null);
      for (const x of confident) expect(x).toBeGreaterThan(0);
      for (const x of confident) expect(x).toBeLessThanOrEqual(1);
    }
    expect(c.flipped.rows.some((r) => r.confidences.every((x) => x !== null))).toBe(true);
  });

  it("takes the first run named as the baseline: naming them the other way round flips every change", async () => {
    const forward = await compare(`runs=${older.id},${newer.id}&item=body_mass&limit=500`);
    const backward = await compare(`runs=${newer.id},${older.id}&item=body_mass&limit=500`);
    expect(forward.runs.map((r) => r.id)).toEqual([older.id, newer.id]);
    expect(backward.runs.map((r) => r.id)).toEqual([newer.id, older.id]);
    for (const [i, m] of forward.metrics.entries()) {
      const back = backward.metrics[i];
      expect(m.deltas[0]).toMatchObject({ run: newer.id, vs: older.id });
      expect(back.deltas[0]).toMatchObject({ run: older.id, vs: newer.id });
      // new - baseline, from the values shown
      expect(m.deltas[0].delta[0]).toBeCloseTo(m.values[1][0] - m.values[0][0], 12);
      expect(back.deltas[0].delta[0]).toBeCloseTo(back.values[1][0] - back.values[0][0], 12);
      // the same change seen from the other side
      expect(Math.sign(back.deltas[0].delta[0]) + Math.sign(m.deltas[0].delta[0])).toBe(0);
      if (["accuracy", "brier", "nll"].includes(m.name)) {
        expect(back.values[0][0]).toBeCloseTo(m.values[1][0], 12);
        expect(back.deltas[0].delta[0]).toBeCloseTo(-m.deltas[0].delta[0], 12);
      }
    }
    expect(backward.flipped.total).toBe(forward.flipped.total);
    expect(forward.flipped.total).toBeGreaterThan(0);
    const f = forward.flipped.rows[0];
    const b = backward.flipped.rows.find((r) => r.exampleId === f.exampleId);
    expect(b?.confidences).toEqual([...f.confidences].reverse());
    expect(b?.answers).toEqual([...f.answers].reverse());
  });
});
