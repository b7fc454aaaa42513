// The report's rates, MCE per binning, interval methods and consistency test over HTTP, on a real SQLite file with
// runs made by the run engine against the reference server; and the CLI `report` printing them from the same file.
import { mce, type TopLabel, topLabel, wilsonInterval } from "@decision-workbench/calibration";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inferSpec } from "../../src/analysis/item-spec.js";
import { itemData } from "../../src/analysis/matrix.js";
import { itemReport, OPTION_ECE_BUDGET } from "../../src/analysis/report.js";
import { runReportCommand } from "../../src/cli/analysis-commands.js";
import type { ItemReport } from "../../src/shapes/reports.js";
import type { RunSummary } from "../../src/shapes/runs.js";
import { startServer } from "./fixtures.js";
import { startWorkbench, type Workbench } from "./harness.js";

let wb: Workbench;
let server: DecisionServerHandle;
let penguins: RunSummary;
let spam: RunSummary;

beforeAll(async () => {
  wb = await startWorkbench();
  server = await startServer({ alias: "bayes-1" });
  const serverId = await wb.addServer(server.url);
  penguins = await wb.run({ dataset: "penguins", serverId, model: "workbench-latest", concurrency: 8 });
  spam = await wb.run({ dataset: "spam-assassin", serverId, model: "workbench-latest", limit: 60 });
});

afterAll(async () => {
  await wb?.close();
  await server?.close();
});

async function report(run: RunSummary, query: string): Promise<ItemReport> {
  const r = await wb.get<ItemReport>(`/api/runs/${run.id}/report?${query}`);
  expect(r.status).toBe(200);
  return r.body;
}

type Rate = ItemReport["perOption"][number]["rates"]["precision"];

/** A rate is its own x / n with the Wilson interval of x of n around it. */
function expectRate(r: Rate, x: number, n: number): void {
  expect({ x: r.x, n: r.n }).toEqual({ x, n });
  if (n === 0) {
    expect([r.value, r.low, r.high]).toEqual([null, null, null]);
    return;
  }
  expect(r.value).toBeCloseTo(x / n, 12);
  const [lo, hi] = wilsonInterval(x, n);
  expect(r.low).toBeCloseTo(lo, 12);
  expect(r.high).toBeCloseTo(hi, 12);
  expect(r.low as number).toBeLessThanOrEqual(r.value as number);
  expect(r.high as number).toBeGreaterThanOrEqual(r.value as number);
}

/** The usable rows' top-label pairs, rebuilt from the items endpoint (independent of the report code). */
async function topPairs(run: RunSummary, item: string, split: string): Promise<TopLabel> {
  const rows: {
    confidence: number | null;
    correct: boolean | null;
    probabilities: Record<string, number>;
  }[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await wb.get<{ total: number; rows: typeof rows }>(
      `/api/runs/${run.id}/items?item=${item}&split=${split}&offset=${offset}&limit=500`,
    );
    rows.push(...page.body.rows);
    if (rows.length >= page.body.total) break;
  }
  const usable = rows.filter((r) => r.correct !== null);
  const k = Object.keys(usable[0].probabilities).length;
  const probs = new Float64Array(usable.length * k);
  const gold = new Int32Array(usable.length);
  usable.forEach((r, i) => {
    Object.values(r.probabilities).forEach((p, j) => {
      probs[i * k + j] = p;
    });
    let best = 0;
    for (let j = 1; j < k; j++) if (probs[i * k + j] > probs[i * k + best]) best = j;
    gold[i] = r.correct ? best : (best + 1) % k;
  });
  return topLabel({ probs, k, gold });
}

describe("rates carry their counts and Wilson intervals", () => {
  it("Unknown rates of penguins/sex match the items endpoint's counts", async () => {
    const r = await report(penguins, "item=sex");
    const u = r.unknown;
    if (!u) throw new Error("sex allows not stated: the report must have an Unknown section");
    const predictedUnknown = await wb.get<{ total: number }>(
      `/api/runs/${penguins.id}/items?item=sex&split=test&filter=unknown&limit=1`,
    );
    expectRate(u.rates.predicted, predictedUnknown.body.total, r.n);
    expect(u.rates.predicted.x).toBe(u.predicted);
    expectRate(u.rates.gold, u.gold, r.n);
    // precision and recall share their numerator (predicted and gold Unknown), over different denominators
    const both = u.rates.precision.x;
    expectRate(u.rates.precision, both, u.predicted);
    expectRate(u.rates.recall, both, u.gold);
    if (u.precision !== null) expect(u.rates.precision.value).toBeCloseTo(u.precision, 12);
    if (u.recall !== null) expect(u.rates.recall.value).toBeCloseTo(u.recall, 12);
    const answered = r.n - u.predicted;
    expect(u.rates.riskAnswered.n).toBe(answered);
    if (u.riskAnswered !== null) expect(u.rates.riskAnswered.value).toBeCloseTo(u.riskAnswered, 12);
    expect(r.rateInterval).toMatch(/Wilson/);
  });

  it("per-option precision and recall are the confusion matrix's diagonal over its column and row sums", async () => {
    for (const item of ["species", "sex", "body_mass"]) {
      const r = await report(penguins, `item=${item}`);
      const m = r.confusion?.matrix;
      if (!m) throw new Error(`${item} is single-label: the report must have a confusion matrix`);
      r.perOption.forEach((o, j) => {
        const tp = m[j][j];
        const column = m.reduce((s, row) => s + row[j], 0);
        const row = m[j].reduce((s, v) => s + v, 0);
        expectRate(o.rates.precision, tp, column);
        expectRate(o.rates.recall, tp, row);
      });
      expect(r.perOption.reduce((s, o) => s + o.rates.recall.n, 0)).toBe(r.n);
    }
  });

  it("multi-label per-label rates count the label decisions at 0.5", async () => {
    const r = await report(spam, "item=properties&split=all");
    expect(r.item.kind).toBe("multi");
    for (const o of r.perOption) {
      expectRate(o.rates.precision, o.rates.precision.x, o.predicted);
      expectRate(o.rates.recall, o.rates.precision.x, o.support);
      expect(o.rates.precision.x).toBeLessThanOrEqual(Math.min(o.predicted, o.support));
    }
  });
});

describe("MCE follows the binning", () => {
  it("reports MCE over equal-width and over equal-mass bins, each the library's MCE of the top-label pairs", async () => {
    for (const bins of [10, 15]) {
      const r = await report(penguins, `item=species&bins=${bins}`);
      const top = await topPairs(penguins, "species", "test");
      const m = r.metrics;
      const plugin = r.plugin;
      if (!m || !plugin) throw new Error("species has usable rows");
      expect(plugin.mce).toBeCloseTo(mce(top, { bins, binning: "width" }), 10);
      expect(plugin.mceMass).toBeCloseTo(mce(top, { bins, binning: "mass" }), 10);
      // the largest bin gap of each diagram the report ships
      const gap = (bs: ItemReport["bins"]["width"]) =>
        Math.max(
          ...bs.filter((b) => b.count > 0).map((b) => Math.abs((b.accuracy ?? 0) - (b.confidence ?? 0))),
        );
      expect(plugin.mce).toBeCloseTo(gap(r.bins.width), 10);
      expect(plugin.mceMass).toBeCloseTo(gap(r.bins.mass), 10);
      // each binning's MCE has its own estimate and interval; the two differ on these data
      expect(m.mceMass[1]).not.toBeNull();
      expect(m.mceMass).not.toEqual(m.mce);
    }
  });
});

describe("per-option small multiples", () => {
  it("give each option's one-vs-rest ECE with an interval holding its point, its plain value the library's", async () => {
    for (const [run, q] of [
      [penguins, "item=species"],
      [spam, "item=properties&split=all"],
    ] as const) {
      const top = await report(run, q);
      expect(top.perOption.every((o) => o.ece === undefined)).toBe(true);
      const r = await report(run, `${q}&view=classwise`);
      for (const o of r.perOption) {
        const e = o.ece;
        if (!e) throw new Error(`${q}: ${o.option} has no ECE in the classwise view`);
        const [point, low, high] = e.estimate;
        expect(low).not.toBeNull();
        expect(low as number).toBeLessThanOrEqual(point);
        expect(high as number).toBeGreaterThanOrEqual(point);
        expect(e.resamples).toBe(Math.min(200, r.resamples.headline));
        // the plain value is the one-vs-rest ECE of the option's equal-width bins the report ships (view width)
        const n = o.bins.reduce((s, b) => s + b.count, 0);
        const binned =
          o.bins.reduce((s, b) => s + b.count * Math.abs((b.accuracy ?? 0) - (b.confidence ?? 0)), 0) / n;
        expect(e.plain).toBeCloseTo(binned, 10);
      }
    }
  });
});

describe("per-option ECE above the budget", () => {
  it("gives the plain one-vs-rest ECE alone when rows x options pass OPTION_ECE_BUDGET", async () => {
    const rows = await wb.storage.listPredictions(penguins.id, { item: "species" });
    const copies = Math.ceil(OPTION_ECE_BUDGET / 3 / rows.length) + 1;
    const many = Array.from({ length: copies }, (_, c) =>
      rows.map((r) => ({ ...r, exampleId: `${r.exampleId}-${c}` })),
    ).flat();
    const d = itemData(inferSpec("species", many), many);
    expect(d.m * d.k).toBeGreaterThan(OPTION_ECE_BUDGET);
    const r = itemReport(d, "all", { view: "classwise", resamples: 200, ci: "headline" });
    for (const o of r.perOption) {
      expect(o.ece?.resamples).toBe(0);
      expect(o.ece?.estimate).toEqual([o.ece?.plain, null, null]);
      const n = o.bins.reduce((s, b) => s + b.count, 0);
      const binned =
        o.bins.reduce((s, b) => s + b.count * Math.abs((b.accuracy ?? 0) - (b.confidence ?? 0)), 0) / n;
      expect(o.ece?.plain).toBeCloseTo(binned, 10);
    }
  });
});

describe("intervals say how they were obtained, and hold their points", () => {
  const cases = [
    [() => penguins, "item=species"],
    [() => penguins, "item=sex"],
    [() => penguins, "item=sex&binning=mass&bins=10"],
    [() => penguins, "item=body_mass&ci=all"],
    [() => spam, "item=properties&split=all"],
    [() => spam, "item=is_spam&split=all&resamples=300"],
  ] as const;

  it("names a method for every metric that has an interval, and none for one that has not", async () => {
    for (const [run, q] of cases) {
      const r = await report(run(), q);
      const m = r.metrics as unknown as Record<string, [number, number | null, number | null]>;
      for (const [name, v] of Object.entries(m)) {
        if (v[1] === null) expect(r.intervals?.[name as keyof typeof r.intervals]).toBeUndefined();
        else expect(r.intervals?.[name as keyof typeof r.intervals], name).toMatch(/\[.+\]/);
      }
      // the calibration errors are biased upward: their method is bias-aware, never the plain percentile
      for (const name of ["ece", "eceMass", "mce", "mceMass", "classwiseEce", "debiasedL2"] as const) {
        expect(m[name][1], `${q} ${name}`).not.toBeNull();
        expect(r.intervals?.[name], `${q} ${name}`).not.toMatch(/^percentile/);
      }
      expect(r.intervals?.accuracy).toMatch(/^percentile bootstrap/);
    }
  });

  it("puts every point inside its own interval, and keeps the plug-in values the bins show", async () => {
    for (const [run, q] of cases) {
      const r = await report(run(), q);
      const m = r.metrics as unknown as Record<string, [number, number | null, number | null]>;
      for (const [name, [point, low, high]] of Object.entries(m)) {
        if (name !== "nll")
          expect(high ?? point, `${q} ${name} is a share or an error in [0, 1]`).toBeLessThanOrEqual(1);
        if (low === null || high === null) continue;
        expect(low, `${q} ${name}`).toBeLessThanOrEqual(point);
        expect(high, `${q} ${name}`).toBeGreaterThanOrEqual(point);
      }
      const plugin = r.plugin;
      if (!plugin) throw new Error("a report with usable rows has plug-in values");
      const binEce = (bs: ItemReport["bins"]["width"]) =>
        bs.reduce((s, b) => s + b.count * Math.abs((b.accuracy ?? 0) - (b.confidence ?? 0)), 0) / r.n;
      if (r.bins.view === "top") {
        expect(plugin.ece).toBeCloseTo(binEce(r.bins.width), 10);
        expect(plugin.eceMass).toBeCloseTo(binEce(r.bins.mass), 10);
      }
    }
  });

  it("gives the consistency test's p-value, its draws and its method", async () => {
    for (const [run, q] of cases) {
      const r = await report(run(), q);
      const c = r.consistency;
      if (!c) throw new Error("a report with usable rows has a consistency test");
      expect(c.statistic).toBe("ece");
      // the library redraws as often as it resamples the classwise ECE: at most 200 times, never more than headline
      expect(c.resamples).toBe(r.resamples.classwise);
      expect(c.resamples).toBe(Math.min(200, r.resamples.headline));
      // p = (1 + k) / (resamples + 1) for a whole k
      const k = c.pValue * (c.resamples + 1) - 1;
      expect(Math.abs(k - Math.round(k))).toBeLessThan(1e-6);
      expect(c.pValue).toBeGreaterThan(0);
      expect(c.pValue).toBeLessThanOrEqual(1);
      expect(c.method).toMatch(/Brocker & Smith 2007/);
    }
  });
});

describe("compare", () => {
  it("prints no point outside its own interval, MCE of both binnings included", async () => {
    const other = await wb.run({
      dataset: "penguins",
      serverId: (await wb.get<{ id: string }[]>("/api/servers")).body[0].id,
      model: "workbench-latest",
      concurrency: 8,
    });
    const c = await wb.get<{
      metrics: {
        name: string;
        values: [number, number, number][];
        deltas: { delta: [number, number, number] }[];
      }[];
    }>(`/api/compare?runs=${penguins.id},${other.id}&item=species`);
    expect(c.status).toBe(200);
    expect(c.body.metrics.map((m) => m.name)).toContain("mceMass");
    for (const m of c.body.metrics) {
      if (m.name !== "nll") for (const v of m.values) expect(v[2], m.name).toBeLessThanOrEqual(1);
      for (const [point, low, high] of [...m.values, ...m.deltas.map((d) => d.delta)]) {
        expect(low, m.name).toBeLessThanOrEqual(point);
        expect(high, m.name).toBeGreaterThanOrEqual(point);
      }
    }
  });
});

describe("workbench report", () => {
  it("prints every rate with x/n and its interval, and MCE under each binning", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runReportCommand([penguins.id, "--data-dir", wb.dir, "--item", "sex"], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });
    expect(err.join("")).toBe("");
    expect(code).toBe(0);
    const text = out.join("");
    const r = await report(penguins, "item=sex");
    const u = r.unknown;
    if (!u) throw new Error("sex allows not stated");
    expect(text).toContain(`predicted ${u.rates.predicted.x}/${u.rates.predicted.n} = `);
    expect(text).toContain(`recall ${u.rates.recall.x}/${u.rates.recall.n}`);
    for (const o of r.perOption) {
      expect(text).toContain(`${o.option}: precision ${o.rates.precision.x}/${o.rates.precision.n}`);
    }
    // a percentage is never printed bare: each one follows "x/n = " or sits inside an interval's brackets
    for (const line of text.split("\n").filter((l) => /precision|recall|Unknown/.test(l))) {
      const bare = line.replace(/\d+\/\d+ = \d+\.\d%/g, "").replace(/\[[^\]]*\]/g, "");
      expect(bare, line).not.toMatch(/\d%/);
    }
    expect(text).toMatch(/equal-width \(15 bins\): ECE .* MCE /);
    expect(text).toMatch(/equal-mass \(15 bins\): {2}ECE .* MCE /);
    expect(text).toMatch(/rates: Wilson score interval/);
    const c = r.consistency;
    if (!c) throw new Error("sex has usable rows");
    expect(text).toMatch(
      c.pValue < 0.05
        ? /evidence of miscalibration: p (<|=) [\d.]+ \(consistency resampling of the ECE, \d+ draws/
        : /consistent with perfect calibration: p = [\d.]+ \(consistency resampling of the ECE, \d+ draws/,
    );
    expect(text).toMatch(/ece, eceMass, mce, mceMass, classwiseEce: bias-bounded basic bootstrap/);
  });
});
