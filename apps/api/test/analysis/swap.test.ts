// A weight swap: the same endpoint answered by bayes-1, then (after a restart on the same port) by bayes-2.
import type { Task } from "@decision-workbench/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrationFile, fitItem } from "../../src/analysis/calibrate.js";
import { checkRun } from "../../src/analysis/check.js";
import { compareItem } from "../../src/analysis/compare.js";
import { taskSpecs } from "../../src/analysis/item-spec.js";
import { type ItemData, itemData, restrictSplits, servedModels } from "../../src/analysis/matrix.js";
import type { PredictionRow } from "../../src/storage/types.js";
import { decisionRows, startServer } from "./fixtures.js";

type Run = Awaited<ReturnType<typeof decisionRows>>;
let a: Run;
let b: Run;
let closeB: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const first = await startServer({ alias: "bayes-1" });
  a = await decisionRows({ url: first.url, dataset: "penguins", runId: "run_a" });
  await first.close();
  const port = Number(new URL(first.url).port);
  const { startDecisionServer } = await import("@decision-workbench/decision-server");
  const second = await startDecisionServer({ port, host: "127.0.0.1", alias: "bayes-2" });
  closeB = second.close;
  b = await decisionRows({ url: second.url, dataset: "penguins", runId: "run_b" });
});

afterAll(async () => {
  await closeB?.();
});

function items(
  run: { rows: PredictionRow[]; task: Task },
  split: "test" | "calibration" | null,
): Map<string, ItemData> {
  const out = new Map<string, ItemData>();
  for (const spec of taskSpecs(run.task)) {
    const d = itemData(
      spec,
      run.rows.filter((r) => r.item === spec.name),
    );
    out.set(spec.name, restrictSplits(d, split ? [split] : null));
  }
  return out;
}

function fileOf(run: Run) {
  const all = items(run, null);
  const fits = Object.fromEntries(
    [...all].map(([name, d]) => [
      name,
      fitItem(restrictSplits(d, ["calibration"]), restrictSplits(d, ["test"]), {
        targetRisk: 0.1,
        resamples: 300,
      }),
    ]),
  );
  return calibrationFile(
    {
      fingerprint: run.fingerprint,
      endpoint: run.endpoint,
      model: "workbench-latest",
      served_by: [...new Set([...all.values()].flatMap(servedModels))].sort(),
      dataset: { name: "penguins", sha256: run.hash },
      fit_split: "calibration",
      eval_split: "test",
    },
    fits,
  );
}

describe("check after a weight swap", () => {
  it("serves the same endpoint and fingerprint from different model versions", () => {
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(servedModels(items(a, null).get("species")!)).toEqual(["bayes-1"]);
    expect(servedModels(items(b, null).get("species")!)).toEqual(["bayes-2"]);
  });

  it("passes the run the file was fitted on and fails the swapped one, saying why", () => {
    const file = fileOf(a);
    const same = checkRun(file, { fingerprint: a.fingerprint, servedBy: ["bayes-1"] }, items(a, "test"));
    expect(same.reasons).toEqual([]);
    expect(same.ok).toBe(true);
    expect(Object.keys(same.questions).sort()).toEqual(["body_mass", "sex", "species"]);
    const swapped = checkRun(file, { fingerprint: b.fingerprint, servedBy: ["bayes-2"] }, items(b, "test"));
    expect(swapped.ok).toBe(false);
    expect(swapped.details.map((d) => d.code)).toContain("served-by-changed");
    expect(swapped.reasons.join(" ")).toMatch(/bayes-2.*bayes-1/);
  });

  it("fails on calibration drift alone: same model, sharper probabilities", () => {
    const file = fileOf(a);
    const sharpen = (p: Record<string, number>) => {
      const powered = Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v ** 4]));
      const sum = Object.values(powered).reduce((x, y) => x + y, 0);
      return Object.fromEntries(Object.entries(powered).map(([k, v]) => [k, v / sum]));
    };
    const drifted = {
      ...a,
      rows: a.rows.map((r) => {
        if (!r.probabilities) return r;
        const p = sharpen(r.probabilities);
        return { ...r, probabilities: p, confidence: Math.max(...Object.values(p)) };
      }),
    };
    const r = checkRun(file, { fingerprint: a.fingerprint, servedBy: ["bayes-1"] }, items(drifted, "test"));
    expect(r.ok).toBe(false);
    const codes = r.details.map((d) => d.code);
    expect(codes.length).toBeGreaterThan(0);
    for (const c of codes) expect(["ece-outside", "answered-error-outside"]).toContain(c);
    expect(r.reasons.join(" ")).toMatch(/outside|above|below/);
  });

  it("fails when the fingerprint differs and when nothing could be measured", () => {
    const file = fileOf(a);
    const other = checkRun(
      file,
      { fingerprint: "decision|http://elsewhere/v1/decision|m", servedBy: ["bayes-1"] },
      items(a, "test"),
    );
    expect(other.details.map((d) => d.code)).toEqual(["fingerprint-changed"]);
    const none = checkRun(file, { fingerprint: a.fingerprint, servedBy: ["bayes-1"] }, new Map());
    expect(none.ok).toBe(false);
    expect(none.details.map((d) => d.code)).toEqual(["nothing-checked"]);
  });

  it("refuses a file whose options do not match the run's item", () => {
    const file = fileOf(a);
    const broken = {
      ...file,
      questions: { ...file.questions, species: { ...file.questions.species, options: ["x", "y", "z"] } },
    };
    expect(() =>
      checkRun(broken, { fingerprint: a.fingerprint, servedBy: ["bayes-1"] }, items(a, "test")),
    ).toThrow(/species/);
  });
});

describe("compare", () => {
  function runOf(run: Run, id: string, item: string) {
    const d = items(run, "test").get(item)!;
    return { id, model: "workbench-latest", servedBy: servedModels(d), data: d };
  }

  it("lists exactly the examples whose answer or status differs", () => {
    let flips = 0;
    for (const item of ["species", "body_mass", "sex"]) {
      const c = compareItem([runOf(a, "run_a", item), runOf(b, "run_b", item)], {
        split: "test",
        resamples: 200,
        limit: 10_000,
      });
      const ra = a.rows.filter((r) => r.item === item && r.split === "test");
      const rb = new Map(
        b.rows.filter((r) => r.item === item && r.split === "test").map((r) => [r.exampleId, r]),
      );
      const differing = ra
        .filter((r) => {
          const o = rb.get(r.exampleId)!;
          return o.status !== r.status || o.answer !== r.answer;
        })
        .map((r) => r.exampleId);
      expect(c.flipped.rows.map((r) => r.exampleId)).toEqual(differing);
      expect(c.flipped.total).toBe(differing.length);
      expect(c.flipped.compared).toBe(ra.length);
      for (const row of c.flipped.rows) {
        const x = ra.find((r) => r.exampleId === row.exampleId)!;
        expect(row.answers).toEqual([x.answer, rb.get(row.exampleId)!.answer]);
      }
      expect(c.servedModelDiffers).toBe(true);
      flips += differing.length;
    }
    expect(flips).toBeGreaterThan(0);
  });

  it("has paired deltas equal to the differences of the points, with the same items for both runs", () => {
    const c = compareItem([runOf(a, "run_a", "species"), runOf(b, "run_b", "species")], {
      split: "test",
      resamples: 300,
    });
    expect(c.n).toBe(items(a, "test").get("species")!.m);
    for (const m of c.metrics) {
      expect(m.values).toHaveLength(2);
      expect(m.deltas).toEqual([{ run: "run_b", vs: "run_a", delta: expect.any(Array) }]);
      expect(m.deltas[0].delta[0]).toBeCloseTo(m.values[1][0] - m.values[0][0], 12);
      expect(m.deltas[0].delta[1]).toBeLessThanOrEqual(m.deltas[0].delta[2]);
    }
    expect(c.bins).toHaveLength(2);
    for (const bins of c.bins) expect(bins.reduce((s, x) => s + x.count, 0)).toBe(c.n);
  });

  it("finds nothing flipped and zero deltas when a run is compared with itself", () => {
    const c = compareItem([runOf(a, "run_a", "sex"), runOf(a, "run_a2", "sex")], {
      split: "test",
      resamples: 100,
    });
    expect(c.flipped.total).toBe(0);
    expect(c.servedModelDiffers).toBe(false);
    for (const m of c.metrics) for (const v of m.deltas[0].delta) expect(v).toBeCloseTo(0, 12);
  });

  it("pairs examples by id when a run lists them in another order or lacks some", () => {
    // run b reversed, without every third example: the same comparison as with both runs cut to the shared
    // examples in run a's order
    const kept = new Set(
      a.rows
        .filter((r) => r.split === "test")
        .map((r) => r.exampleId)
        .filter((_, i) => i % 3 !== 0),
    );
    const cut = (run: Run) => ({ ...run, rows: run.rows.filter((r) => kept.has(r.exampleId)) });
    const shuffled = { ...cut(b), rows: [...cut(b).rows].reverse() };
    for (const item of ["species", "sex"]) {
      const opts = { split: "test", resamples: 100, limit: 10_000 };
      const paired = compareItem([runOf(a, "run_a", item), runOf(shuffled, "run_b", item)], opts);
      const ordered = compareItem([runOf(cut(a), "run_a", item), runOf(cut(b), "run_b", item)], opts);
      expect(paired.n).toBeGreaterThan(0);
      expect(paired.n).toBe(ordered.n);
      expect(paired.flipped.compared).toBe(kept.size);
      expect(paired).toEqual(ordered);
    }
  });

  it("pages the flipped rows", () => {
    const full = compareItem([runOf(a, "run_a", "body_mass"), runOf(b, "run_b", "body_mass")], {
      split: "test",
      resamples: 50,
    });
    const page = compareItem([runOf(a, "run_a", "body_mass"), runOf(b, "run_b", "body_mass")], {
      split: "test",
      resamples: 50,
      offset: 1,
      limit: 2,
    });
    expect(page.flipped.total).toBe(full.flipped.total);
    expect(page.flipped.rows).toEqual(full.flipped.rows.slice(1, 3));
  });
});
