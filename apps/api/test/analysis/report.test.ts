import { ece, type Labelled, reliabilityBins, topLabel } from "@decision-workbench/calibration";
import type { Task } from "@decision-workbench/datasets";
import { itemOptionNames } from "@decision-workbench/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headlineMetrics } from "../../src/analysis/headline.js";
import { taskSpecs } from "../../src/analysis/item-spec.js";
import { itemData, restrictSplits } from "../../src/analysis/matrix.js";
import { itemReport, reportBase } from "../../src/analysis/report.js";
import type { ItemReport } from "../../src/shapes/reports.js";
import type { PredictionRow } from "../../src/storage/types.js";
import { decisionRows, escalatedRow, startServer } from "./fixtures.js";

let penguins: { rows: PredictionRow[]; task: Task };
let spam: { rows: PredictionRow[]; task: Task };
let close: () => Promise<void>;

beforeAll(async () => {
  const server = await startServer();
  close = server.close;
  penguins = await decisionRows({ url: server.url, dataset: "penguins" });
  spam = await decisionRows({ url: server.url, dataset: "spam-assassin", limit: 300 });
});

afterAll(async () => {
  await close?.();
});

function reportOf(
  set: { rows: PredictionRow[]; task: Task },
  item: string,
  split = "test",
  extra: PredictionRow[] = [],
) {
  const spec = taskSpecs(set.task).find((s) => s.name === item)!;
  const rows = [...set.rows.filter((r) => r.item === item), ...extra];
  const d = restrictSplits(itemData(spec, rows), split === "all" ? null : [split as "test"]);
  return { d, rows: rows.filter((r) => split === "all" || r.split === split) };
}

/** Whether a stored decision is right, read from the row alone (independent of the analysis code). */
function rightByRow(r: PredictionRow): boolean {
  if (r.status === "unknown") return r.gold === "not stated";
  if (Array.isArray(r.gold) && Array.isArray(r.answer)) {
    return [...r.gold].sort().join("|") === [...r.answer].sort().join("|");
  }
  return r.answer === r.gold;
}

describe("headlineMetrics", () => {
  it("is the accuracy and 15-bin ECE of every usable decision of every item", () => {
    const all = [...penguins.rows, ...spam.rows];
    const h = headlineMetrics(all);
    const usable = all.filter((r) => r.status !== "escalated" && r.gold !== null);
    const y = Uint8Array.from(usable, (r) => (rightByRow(r) ? 1 : 0));
    const p = Float64Array.from(usable, (r) => r.confidence!);
    expect(h.accuracy).toBeCloseTo(y.reduce((s, v) => s + v, 0) / usable.length, 12);
    expect(h.ece).toBeCloseTo(ece({ p, y }, { bins: 15 }), 12);
    expect(h.n).toBe(usable.length);
  });

  it("leaves escalated rows out and is null when nothing is usable", () => {
    const extra = penguins.rows.slice(0, 20).map((r, i) => escalatedRow(r, `x${i}`));
    expect(headlineMetrics([...penguins.rows, ...extra])).toEqual(headlineMetrics(penguins.rows));
    expect(headlineMetrics(extra)).toEqual({ accuracy: null, ece: null, n: 0 });
    expect(headlineMetrics([])).toEqual({ accuracy: null, ece: null, n: 0 });
  });
});

describe("itemReport on real decisions", () => {
  let species: ItemReport;
  let speciesRows: PredictionRow[];
  beforeAll(() => {
    const { d, rows } = reportOf(penguins, "species");
    speciesRows = rows;
    species = itemReport(d, "test");
  });

  it("counts every row once and measures the usable ones", () => {
    const c = species.counts;
    expect(c.total).toBe(speciesRows.length);
    expect(c.answered + c.unknown + c.escalated).toBe(c.total);
    expect(species.n).toBe(c.total - c.escalated - c.invalid - c.unlabelled);
    expect(species.n).toBeGreaterThan(50);
  });

  it("has ECE equal to the calibration library's on the same arrays", () => {
    const options = itemOptionNames(penguins.task.items[0]);
    const probs = new Float64Array(speciesRows.length * options.length);
    const gold = new Int32Array(speciesRows.length);
    speciesRows.forEach((r, i) => {
      options.forEach((o, j) => {
        probs[i * options.length + j] = r.probabilities![o];
      });
      gold[i] = options.indexOf(r.gold as string);
    });
    const top = topLabel({ probs, k: options.length, gold } as Labelled);
    // the plug-in values are the library's on the same arrays; the metrics' points are bias-corrected estimates
    expect(species.plugin!.ece).toBeCloseTo(ece(top, { bins: 15 }), 12);
    expect(species.plugin!.eceMass).toBeCloseTo(ece(top, { bins: 15, binning: "mass" }), 12);
    expect(species.bins.width.map((b) => b.count)).toEqual(reliabilityBins(top).map((b) => b.count));
  });

  it("has bins whose counts sum to n, both binnings, per option too", () => {
    const sum = (bins: { count: number }[]) => bins.reduce((s, b) => s + b.count, 0);
    expect(sum(species.bins.width)).toBe(species.n);
    expect(sum(species.bins.mass)).toBe(species.n);
    expect(species.bins.width).toHaveLength(15);
    for (const o of species.perOption) expect(sum(o.bins)).toBe(species.n);
    const h = species.histogram.reduce((s, b) => s + b.right + b.wrong, 0);
    expect(h).toBe(species.n);
  });

  it("has bootstrap intervals around the mean metrics, ordered low <= high everywhere", () => {
    const m = species.metrics!;
    for (const name of ["accuracy", "brier", "nll"] as const) {
      expect(m[name][1]).toBeLessThanOrEqual(m[name][0]);
      expect(m[name][0]).toBeLessThanOrEqual(m[name][2]);
    }
    for (const v of Object.values(m)) {
      if (v[1] !== null && v[2] !== null) expect(v[1]).toBeLessThanOrEqual(v[2]);
    }
    expect(species.resamples.headline).toBe(1000);
  });

  it("has a confusion matrix and a histogram that agree with the accuracy", () => {
    const cm = species.confusion!;
    const total = cm.matrix.flat().reduce((s, v) => s + v, 0);
    const diagonal = cm.matrix.reduce((s, row, i) => s + row[i], 0);
    expect(total).toBe(species.n);
    expect(diagonal / total).toBeCloseTo(species.metrics!.accuracy[0], 12);
    const right = species.histogram.reduce((s, b) => s + b.right, 0);
    expect(right).toBe(diagonal);
    const rightByRows = speciesRows.filter(rightByRow).length;
    expect(right).toBe(rightByRows);
  });

  it("has per-option precision and recall that match counts from the rows", () => {
    for (const o of species.perOption) {
      const predicted = speciesRows.filter((r) => r.answer === o.option);
      const gold = speciesRows.filter((r) => r.gold === o.option);
      const hits = predicted.filter((r) => r.gold === o.option).length;
      expect(o.support).toBe(gold.length);
      expect(o.predicted).toBe(predicted.length);
      if (predicted.length) expect(o.precision).toBeCloseTo(hits / predicted.length, 12);
      if (gold.length) expect(o.recall).toBeCloseTo(hits / gold.length, 12);
    }
  });

  it("has a risk-coverage curve of at most 101 points ending at full coverage", () => {
    const rc = species.riskCoverage;
    expect(rc.length).toBeLessThanOrEqual(101);
    const last = rc[rc.length - 1];
    expect(last.coverage).toBe(1);
    expect(last.risk).toBeCloseTo(1 - species.metrics!.accuracy[0], 12);
    expect(last.escalated).toBe(species.counts.escalated);
    for (let i = 1; i < rc.length; i++) expect(rc[i].coverage).toBeGreaterThanOrEqual(rc[i - 1].coverage);
    expect(species.aurc).toBeGreaterThanOrEqual(0);
    expect(species.aurc).toBeLessThanOrEqual(last.risk + 1e-12);
  });

  it("counts escalated rows without measuring them", () => {
    const like = speciesRows[0];
    const extra = Array.from({ length: 7 }, (_, i) => escalatedRow(like, `esc-${i}`));
    const { d } = reportOf(penguins, "species", "test", extra);
    const r = itemReport(d, "test");
    expect(r.counts.escalated).toBe(species.counts.escalated + 7);
    expect(r.n).toBe(species.n);
    expect(r.metrics).toEqual(species.metrics);
    expect(r.riskCoverage[r.riskCoverage.length - 1].escalated).toBe(species.counts.escalated + 7);
  });

  it("reports nothing measurable when every row escalated", () => {
    const extra = Array.from({ length: 3 }, (_, i) => escalatedRow(speciesRows[0], `esc-${i}`));
    const spec = taskSpecs(penguins.task)[0];
    const r = itemReport(itemData(spec, extra), "test");
    expect(r.n).toBe(0);
    expect(r.metrics).toBeNull();
    expect(r.counts.escalated).toBe(3);
  });

  it("gives the same report from a shared base when only binning or view change, and ignores a base for other bins", () => {
    const { d } = reportOf(penguins, "body_mass");
    const base = reportBase(d, { resamples: 100 });
    for (const opts of [{ binning: "mass" as const }, { view: "classwise" as const }, {}]) {
      expect(itemReport(d, "test", { ...opts, resamples: 100 }, base)).toEqual(
        itemReport(d, "test", { ...opts, resamples: 100 }),
      );
    }
    const other = itemReport(d, "test", { bins: 10, resamples: 100 }, base);
    expect(other.bins.width).toHaveLength(10);
    expect(other.metrics).toEqual(itemReport(d, "test", { bins: 10, resamples: 100 }).metrics);
  });

  it("pools every option in the classwise view", () => {
    const { d } = reportOf(penguins, "species");
    const r = itemReport(d, "test", { view: "classwise", ci: "headline" });
    expect(r.bins.width.reduce((s, b) => s + b.count, 0)).toBe(species.n * 3);
    expect(r.metrics!.ece).toEqual(species.metrics!.ece);
    // ci=headline leaves the classification scores without intervals; calibration errors always have theirs
    expect(r.metrics!.macroF1![1]).toBeNull();
    expect(r.metrics!.classwiseEce[1]).not.toBeNull();
  });

  it("has ordinal metrics for the score item only, and Unknown analytics where Unknown is allowed", () => {
    const mass = itemReport(reportOf(penguins, "body_mass").d, "test");
    expect(mass.metrics!.rps).toBeDefined();
    expect(mass.metrics!.offByOne![0]).toBeGreaterThanOrEqual(mass.metrics!.accuracy[0]);
    expect(species.metrics!.rps).toBeUndefined();
    expect(species.unknown).toBeUndefined();
    const { d, rows } = reportOf(penguins, "sex", "all");
    const sex = itemReport(d, "all");
    const predicted = rows.filter((r) => r.status === "unknown").length;
    const gold = rows.filter((r) => r.gold === "not stated").length;
    expect(sex.unknown!.predictedRate).toBeCloseTo(predicted / sex.n, 12);
    expect(sex.unknown!.goldRate).toBeCloseTo(gold / sex.n, 12);
    expect(sex.confusion!.labels).toEqual(["female", "male", "not stated"]);
  });
});

describe("itemReport on multi-label decisions", () => {
  it("has per-label threshold curves, tuned thresholds no worse than 0.5 on F1, and label supports", () => {
    const { d, rows } = reportOf(spam, "properties", "all");
    const r = itemReport(d, "all");
    expect(r.confusion).toBeUndefined();
    expect(r.thresholds!.map((t) => t.label)).toEqual(["link", "money", "reply", "quote", "unsubscribe"]);
    for (const t of r.thresholds!) {
      expect(t.curve.length).toBeLessThanOrEqual(101);
      expect(t.f1Tuned).toBeGreaterThanOrEqual(t.f1At05 - 1e-12);
      const at05 = t.curve.find((c) => c.t === 0.5)!;
      expect(at05.f1).toBeCloseTo(t.f1At05, 12);
    }
    for (const o of r.perOption) {
      expect(o.support).toBe(rows.filter((x) => (x.gold as string[]).includes(o.option)).length);
    }
    const exact = rows.filter(rightByRow).length;
    expect(r.metrics!.accuracy[0]).toBeCloseTo(exact / r.n, 12);
    expect(r.metrics!.microF1).toBeDefined();
  });

  it("has a yes/no item with both classes present in the spread sample", () => {
    const { d } = reportOf(spam, "is_spam", "all");
    const r = itemReport(d, "all");
    expect(r.perOption.every((o) => o.support > 0)).toBe(true);
  });
});
