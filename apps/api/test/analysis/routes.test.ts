// The analysis routes over HTTP on a real SQLite file, with runs made by the run engine against the real reference
// server: bayes-1, then a weight swap to bayes-2 on the same endpoint.
import { randomBytes } from "node:crypto";
import { validateCalibrationFile } from "@decision-workbench/calibration";
import { type DecisionServerHandle, startDecisionServer } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisData } from "../../src/analysis/data.js";
import { taskSpecs } from "../../src/analysis/item-spec.js";
import { itemData, restrictSplits } from "../../src/analysis/matrix.js";
import { itemReport } from "../../src/analysis/report.js";
import type { RunSummary } from "../../src/shapes/runs.js";
import type { PredictionRow } from "../../src/storage/types.js";
import { parseCsv } from "./csv.js";
import { startWorkbench, type Workbench } from "./harness.js";

const KEY = `sk-analysis-${randomBytes(12).toString("hex")}`;
let wb: Workbench;
let server: DecisionServerHandle | undefined;
let runA: RunSummary;
let runB: RunSummary;
let runWeather: RunSummary;
let runSpam: RunSummary;
const texts: string[] = [];

type Res<T = Record<string, unknown>> = { status: number; body: T; text: string };
async function get<T = Record<string, unknown>>(path: string): Promise<Res<T>> {
  const r = await wb.get<T>(path);
  texts.push(r.text);
  return r;
}
async function post<T = Record<string, unknown>>(path: string, body: unknown): Promise<Res<T>> {
  const r = await wb.post<T>(path, body);
  texts.push(r.text);
  return r;
}

beforeAll(async () => {
  wb = await startWorkbench();
  server = await startDecisionServer({ port: 0, host: "127.0.0.1", alias: "bayes-1", apiKey: KEY });
  const port = Number(new URL(server.url).port);
  const added = await wb.post<{ id: string }>("/api/servers", {
    name: "reference with a key",
    baseUrl: server.url,
    models: ["workbench-latest"],
    apiKey: KEY,
    deterministic: true,
  });
  expect(added.status).toBe(201);
  const serverId = added.body.id;
  runA = await wb.run({ dataset: "penguins", serverId, model: "workbench-latest", concurrency: 8 });
  runSpam = await wb.run({
    dataset: "spam-assassin",
    serverId,
    model: "workbench-latest",
    limit: 40,
    options: { return_reasoning: true },
  });
  await server.close();
  server = await startDecisionServer({ port, host: "127.0.0.1", alias: "bayes-2", apiKey: KEY });
  runB = await wb.run({ dataset: "penguins", serverId, model: "workbench-latest", concurrency: 8 });
  runWeather = await wb.run({ dataset: "seattle-weather", serverId, model: "workbench-latest", limit: 10 });
});

afterAll(async () => {
  await wb?.close();
  await server?.close();
});

const errorOf = (r: Res) => (r.body as unknown as { error: { code: string; message: string } }).error;

describe("the runs behind the tests", () => {
  it("finished on the same endpoint, served by bayes-1 then bayes-2", () => {
    for (const r of [runA, runB, runSpam, runWeather]) expect(r.status).toBe("done");
    expect(runA.fingerprint).toBe(runB.fingerprint);
    expect(runA.servedBy).toEqual(["bayes-1"]);
    expect(runB.servedBy).toEqual(["bayes-2"]);
  });
});

describe("GET /api/runs/:id/report", () => {
  it("answers the first item on the test split, equal to the report of the stored rows", async () => {
    const r = await get<ReturnType<typeof itemReport>>(`/api/runs/${runA.id}/report`);
    expect(r.status).toBe(200);
    expect(r.body.item.name).toBe("species");
    expect(r.body.split).toBe("test");
    const rows = await wb.storage.listPredictions(runA.id, { item: "species" });
    const task = (await wb.storage.getTask("penguins"))!;
    const expected = itemReport(restrictSplits(itemData(taskSpecs(task)[0], rows), ["test"]), "test");
    expect(r.body).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(r.body.bins.width.reduce((s, b) => s + b.count, 0)).toBe(r.body.n);
    expect(r.body.n).toBe(rows.filter((x) => x.split === "test").length);
  });

  it("takes item, split, bins, binning, view, resamples, interval and ci", async () => {
    const r = await get<ReturnType<typeof itemReport>>(
      `/api/runs/${runA.id}/report?item=sex&split=calibration&bins=10&binning=mass&view=classwise&resamples=100&interval=jeffreys&ci=headline`,
    );
    expect(r.status).toBe(200);
    expect(r.body.item.name).toBe("sex");
    expect(r.body.split).toBe("calibration");
    expect(r.body.bins.count).toBe(10);
    expect(r.body.bins.width).toHaveLength(10);
    expect(r.body.perOption[0].bins).toHaveLength(10);
    expect(r.body.resamples).toEqual({ headline: 100, secondary: 0, classwise: 100 });
    expect(r.body.unknown).toBeDefined();
    expect(r.body.bins.width.reduce((s, b) => s + b.count, 0)).toBe(r.body.n * 3);
  });

  it("answers bad queries with a 400 that says what would be right, and unknown runs with a 404", async () => {
    const item = await get(`/api/runs/${runA.id}/report?item=beak`);
    expect(item.status).toBe(400);
    expect(errorOf(item).message).toMatch(/no item "beak"; its items are species, body_mass, sex/);
    for (const q of [
      "bins=1",
      "bins=abc",
      "binning=quantile",
      "split=dev",
      "view=all",
      "resamples=5",
      "colour=red",
    ]) {
      const r = await get(`/api/runs/${runA.id}/report?${q}`);
      expect(r.status, q).toBe(400);
      expect(errorOf(r).message.length).toBeGreaterThan(10);
    }
    const missing = await get("/api/runs/run_nope/report");
    expect(missing.status).toBe(404);
    expect(errorOf(missing).message).toMatch(/run "run_nope" does not exist/);
  });

  it("serves every item in report.json", async () => {
    const r = await wb.get<{ items: { item: { name: string } }[]; split: string }>(
      `/api/runs/${runA.id}/report.json`,
    );
    texts.push(r.text);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-disposition")).toMatch(/attachment/);
    expect(r.body.items.map((i) => i.item.name)).toEqual(["species", "body_mass", "sex"]);
    expect(r.body.split).toBe("test");
  });
});

describe("reports read the stored analysis columns", () => {
  /** A fresh AnalysisData (as after a restart) over the same storage, counting what it reads. */
  function restarted() {
    const calls = { values: 0, predictions: 0 };
    const inner = wb.storage;
    const proxy = Object.create(inner) as typeof inner;
    proxy.itemColumns = (...args: Parameters<typeof inner.itemColumns>) => {
      calls.values++;
      return inner.itemColumns(...args);
    };
    proxy.listPredictions = (...args: Parameters<typeof inner.listPredictions>) => {
      calls.predictions++;
      return inner.listPredictions(...args);
    };
    proxy.predictionPages = (...args: Parameters<typeof inner.predictionPages>) => {
      calls.predictions++;
      return inner.predictionPages(...args);
    };
    return { data: new AnalysisData(proxy), calls };
  }

  it("after a restart: one read of an item's columns, no stored decision parsed, the same report", async () => {
    const { data, calls } = restarted();
    const loaded = await data.run(runA.id);
    const first = await data.report(loaded, { item: "body_mass" });
    const other = await data.report(loaded, { item: "body_mass", bins: 7, binning: "mass" });
    expect(calls).toEqual({ values: 1, predictions: 0 });
    expect((await get(`/api/runs/${runA.id}/report?item=body_mass`)).body).toEqual(
      JSON.parse(JSON.stringify(first)),
    );
    expect((await get(`/api/runs/${runA.id}/report?item=body_mass&bins=7&binning=mass`)).body).toEqual(
      JSON.parse(JSON.stringify(other)),
    );
    const rows = await wb.storage.listPredictions(runA.id, { item: "body_mass" });
    const spec = taskSpecs((await wb.storage.getTask("penguins"))!).find((x) => x.name === "body_mass")!;
    const fresh = itemReport(restrictSplits(itemData(spec, rows), ["test"]), "test", {
      bins: 7,
      binning: "mass",
    });
    expect(other).toEqual(fresh);
  });

  it("a report asked again is served from the cache; a new split reads the columns again", async () => {
    const { data, calls } = restarted();
    const loaded = await data.run(runB.id);
    await data.report(loaded, { item: "species" });
    await data.report(loaded, { item: "species" });
    await data.report(loaded, { item: "species", bins: 9 });
    expect(calls.values).toBe(1);
    await data.report(loaded, { item: "species", split: "calibration" });
    expect(calls).toEqual({ values: 2, predictions: 0 });
  });
});

describe("GET /api/runs/:id/items", () => {
  type Items = {
    total: number;
    rows: {
      exampleId: string;
      split: string;
      state: unknown;
      gold: unknown;
      status: string;
      answer: unknown;
      confidence: number | null;
      correct: boolean | null;
      probabilities: Record<string, number> | null;
    }[];
  };

  it("lists every decision of an item with its state, paged", async () => {
    const all = await get<Items>(`/api/runs/${runA.id}/items?item=species&limit=500`);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(runA.progress.done);
    expect(all.body.rows).toHaveLength(Math.min(500, all.body.total));
    const first = all.body.rows[0];
    expect(first.state).toMatchObject({ Island: expect.any(String) });
    expect(first.probabilities).toMatchObject({ Adelie: expect.any(Number) });
    const page = await get<Items>(`/api/runs/${runA.id}/items?item=species&offset=5&limit=3`);
    expect(page.body.rows.map((r) => r.exampleId)).toEqual(all.body.rows.slice(5, 8).map((r) => r.exampleId));
  });

  it("shows the stored reasoning: per option for a multi-label item", async () => {
    const spam = await get<Items & { rows: { reasoning: string | null }[] }>(
      `/api/runs/${runSpam.id}/items?item=properties&limit=5`,
    );
    const stored = await wb.storage.listPredictions(runSpam.id, { item: "properties" });
    const first = stored[0].record.reasoning as Record<string, { text: string }>;
    expect(Object.keys(first)).toContain("link");
    expect(spam.body.rows[0].reasoning).toContain(`link: ${first.link.text}`);
    // a multi-label gold and answer are lists of labels, as stored (not one joined string)
    const lists = spam.body.rows.map((r) => [r.gold, r.answer]);
    expect(lists.flat().every((x) => x === null || Array.isArray(x))).toBe(true);
    expect(lists.flat().some((x) => Array.isArray(x) && x.length > 1)).toBe(true);
    const single = await get<Items & { rows: { reasoning: string | null }[] }>(
      `/api/runs/${runSpam.id}/items?item=is_spam&limit=1`,
    );
    const yes = (await wb.storage.listPredictions(runSpam.id, { item: "is_spam" }))[0].record.reasoning as {
      text: string;
    };
    expect(single.body.rows[0].reasoning).toBe(yes.text);
  });

  it("filters wrong answers, confident-wrong first, Unknown and by label", async () => {
    const wrong = await get<Items>(`/api/runs/${runA.id}/items?item=body_mass&filter=wrong&limit=500`);
    const stored = (await wb.storage.listPredictions(runA.id, { item: "body_mass" })) as PredictionRow[];
    const wrongStored = stored.filter((r) => r.status !== "escalated" && r.answer !== r.gold);
    expect(wrong.body.total).toBe(wrongStored.length);
    expect(wrong.body.rows.every((r) => r.correct === false && r.answer !== r.gold)).toBe(true);
    const confident = await get<Items>(
      `/api/runs/${runA.id}/items?item=body_mass&filter=confident-wrong&limit=500`,
    );
    expect(confident.body.total).toBe(wrong.body.total);
    const c = confident.body.rows.map((r) => r.confidence!);
    expect(c).toEqual([...c].sort((a, b) => b - a));
    const unknown = await get<Items>(`/api/runs/${runA.id}/items?item=sex&filter=unknown`);
    expect(unknown.body.total).toBe(
      stored.length === 0
        ? 0
        : (await wb.storage.listPredictions(runA.id, { item: "sex" })).filter((r) => r.status === "unknown")
            .length,
    );
    expect(unknown.body.rows.every((r) => r.status === "unknown")).toBe(true);
    const adelie = await get<Items>(
      `/api/runs/${runA.id}/items?item=species&label=Adelie&split=test&limit=500`,
    );
    expect(adelie.body.total).toBeGreaterThan(0);
    expect(adelie.body.rows.every((r) => r.gold === "Adelie" && r.split === "test")).toBe(true);
    const link = await get<Items>(`/api/runs/${runSpam.id}/items?item=properties&label=link&limit=500`);
    expect(link.body.total).toBeGreaterThan(0);
    expect(link.body.rows.every((r) => (r.gold as string[]).includes("link"))).toBe(true);
    const bad = await get(`/api/runs/${runA.id}/items?filter=worst`);
    expect(bad.status).toBe(400);
    expect(errorOf(bad).message).toMatch(/confident-wrong/);
  });
});

describe("calibrations", () => {
  type Calibration = {
    id: string;
    runId: string | null;
    file: Record<string, unknown> & { questions: Record<string, { method: string }> };
    candidates: Record<string, { method: string; chosen: boolean; heldOut: { nll: number[] } | null }[]>;
    before: Record<string, { count: number }[]>;
    after: Record<string, { count: number }[]>;
    selection: Record<string, { by: string; on: string; folds?: number; verdict: string; note: string }>;
    imported: boolean;
  };
  let fitted: Calibration;

  beforeAll(async () => {
    const r = await post<Calibration>(`/api/runs/${runA.id}/calibrations`, {
      fitSplit: "calibration",
      evalSplit: "test",
      methods: "auto",
      targetRisk: 0.1,
      resamples: 200,
    });
    expect(r.status).toBe(201);
    fitted = r.body;
  });

  it("fits every item with every candidate compared by cross-fitting and a valid file", () => {
    expect(Object.keys(fitted.candidates)).toEqual(["species", "body_mass", "sex"]);
    for (const [item, cands] of Object.entries(fitted.candidates)) {
      const chosen = cands.filter((c) => c.chosen);
      expect(chosen).toHaveLength(1);
      expect(cands.length).toBeGreaterThanOrEqual(6);
      expect(fitted.selection[item]).toMatchObject({ by: "cross-fit", on: "calibration", folds: 5 });
      expect(fitted.file.questions[item].method).toBe(chosen[0].method);
      const n = fitted.before[item].reduce((s, b) => s + b.count, 0);
      expect(fitted.after[item].reduce((s, b) => s + b.count, 0)).toBe(n);
    }
    expect(validateCalibrationFile(fitted.file).ok).toBe(true);
  });

  it("lists, gets and downloads it", async () => {
    const list = await get<Calibration[]>(`/api/calibrations?runId=${runA.id}`);
    expect(list.body.map((c) => c.id)).toContain(fitted.id);
    const one = await get<Calibration>(`/api/calibrations/${fitted.id}`);
    expect(one.body).toEqual(fitted);
    const file = await wb.get(`/api/calibrations/${fitted.id}/file`);
    texts.push(file.text);
    expect(file.headers.get("content-disposition")).toMatch(/calibration-cal_/);
    expect(file.body).toEqual(fitted.file);
    expect((await get("/api/calibrations/cal_nope")).status).toBe(404);
  });

  it("imports a file and refuses a broken one with every problem located", async () => {
    const imported = await post<Calibration>("/api/calibrations/import", fitted.file);
    expect(imported.status).toBe(201);
    expect(imported.body.imported).toBe(true);
    expect(imported.body.file).toEqual(fitted.file);
    const broken = {
      ...fitted.file,
      schema: "decision-workbench/calibration@1",
      questions: { species: { kind: "choice" } },
    };
    const bad = await post("/api/calibrations/import", broken);
    expect(bad.status).toBe(400);
    const details = (bad.body as { error: { details: { path: string }[] } }).error.details;
    expect(details.map((d) => d.path)).toEqual(
      expect.arrayContaining(["questions.species.options", "questions.species.method"]),
    );
  });

  it("passes the run it was fitted on and fails the swapped run with the reason", async () => {
    const same = await post<{ ok: boolean; reasons: string[] }>(`/api/runs/${runA.id}/check`, {
      calibrationId: fitted.id,
    });
    expect(same.status).toBe(200);
    expect(same.body.reasons).toEqual([]);
    expect(same.body.ok).toBe(true);
    const swapped = await post<{ ok: boolean; reasons: string[]; details: { code: string }[] }>(
      `/api/runs/${runB.id}/check`,
      {
        file: fitted.file,
      },
    );
    expect(swapped.body.ok).toBe(false);
    expect(swapped.body.details.map((d) => d.code)).toContain("served-by-changed");
    expect(swapped.body.reasons.join(" ")).toMatch(/bayes-2/);
  });

  it("refuses bad fit and check requests", async () => {
    const same = await post(`/api/runs/${runA.id}/calibrations`, { fitSplit: "test", evalSplit: "test" });
    expect(same.status).toBe(400);
    expect(errorOf(same).message).toMatch(/crossfit/);
    const missing = await post(`/api/runs/${runA.id}/calibrations`, { evalSplit: "train" });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).message).toMatch(/no train split/);
    const vector = await post(`/api/runs/${runSpam.id}/calibrations`, {
      item: "properties",
      methods: ["vector"],
    });
    expect(vector.status).toBe(422);
    expect(errorOf(vector).message).toMatch(/platt/);
    const method = await post(`/api/runs/${runA.id}/calibrations`, { methods: ["magic"] });
    expect(method.status).toBe(400);
    const both = await post(`/api/runs/${runA.id}/check`, { calibrationId: fitted.id, file: fitted.file });
    expect(both.status).toBe(400);
    const neither = await post(`/api/runs/${runA.id}/check`, {});
    expect(neither.status).toBe(400);
    const mismatch = await post(`/api/runs/${runWeather.id}/check`, {
      file: { ...fitted.file, questions: { weather: { ...fitted.file.questions.species } } },
    });
    expect(mismatch.status).toBe(422);
    expect(errorOf(mismatch).message).toMatch(/weather/);
  });

  it("cross-fits when asked", async () => {
    const r = await post<Calibration & { fit: { n: Record<string, { fit: number; eval: number }> } }>(
      `/api/runs/${runA.id}/calibrations`,
      { item: "species", evalSplit: "crossfit", methods: ["temperature"], resamples: 100 },
    );
    expect(r.status).toBe(201);
    expect(r.body.fit.n.species.fit).toBe(r.body.fit.n.species.eval);
    expect((r.body.file as unknown as { source: { eval_split: string } }).source.eval_split).toBe("crossfit");
  });
});

describe("GET /api/compare", () => {
  type Comparison = {
    runs: { id: string; servedBy: string[] }[];
    servedModelDiffers: boolean;
    metrics: { name: string; values: number[][]; deltas: { run: string; vs: string; delta: number[] }[] }[];
    bins: { count: number }[][];
    flipped: { total: number; rows: { exampleId: string; answers: unknown[]; statuses: string[] }[] };
  };

  it("pairs the runs, names the served models and lists exactly the flipped examples", async () => {
    const r = await get<Comparison>(`/api/compare?runs=${runA.id},${runB.id}&item=body_mass&limit=500`);
    expect(r.status).toBe(200);
    expect(r.body.servedModelDiffers).toBe(true);
    expect(r.body.runs.map((x) => x.servedBy)).toEqual([["bayes-1"], ["bayes-2"]]);
    const a = (await wb.storage.listPredictions(runA.id, {
      item: "body_mass",
      split: "test",
    })) as PredictionRow[];
    const b = new Map(
      (
        (await wb.storage.listPredictions(runB.id, { item: "body_mass", split: "test" })) as PredictionRow[]
      ).map((x) => [x.exampleId, x]),
    );
    const differing = a.filter(
      (x) => b.get(x.exampleId)!.answer !== x.answer || b.get(x.exampleId)!.status !== x.status,
    );
    expect(r.body.flipped.total).toBe(differing.length);
    expect(r.body.flipped.rows.map((x) => x.exampleId)).toEqual(differing.map((x) => x.exampleId));
    for (const m of r.body.metrics) {
      const [point, low, high] = m.deltas[0].delta;
      expect(low).toBeLessThanOrEqual(point);
      expect(high).toBeGreaterThanOrEqual(point);
      // the change is the difference of the values shown, calibration errors (bias-corrected) included
      expect(point).toBeCloseTo(m.values[1][0] - m.values[0][0], 12);
    }
  });

  it("refuses runs on different datasets, a single run and unknown runs", async () => {
    const mixed = await get(`/api/compare?runs=${runA.id},${runWeather.id}`);
    expect(mixed.status).toBe(400);
    expect(errorOf(mixed).message).toMatch(/same dataset/);
    const single = await get(`/api/compare?runs=${runA.id}`);
    expect(single.status).toBe(400);
    expect(errorOf(single).message).toMatch(/two or more run ids/);
    const missing = await get(`/api/compare?runs=${runA.id},run_nope`);
    expect(missing.status).toBe(404);
  });
});

describe("exports", () => {
  it("writes CSV that parses back to the JSON export, one row per example x item", async () => {
    for (const run of [runA, runSpam]) {
      const csv = await wb.get(`/api/runs/${run.id}/export.csv`);
      const json = await wb.get<Record<string, unknown>[]>(`/api/runs/${run.id}/export.json`);
      texts.push(csv.text, json.text);
      expect(csv.headers.get("content-type")).toMatch(/text\/csv/);
      const stored = await wb.storage.listPredictions(run.id);
      expect(json.body).toHaveLength(stored.length);
      // in run order, each example's items together: every stored decision once
      expect(json.body.map((r) => [r.exampleId, r.item, r.answer ?? null])).toEqual(
        stored.map((r) => [r.exampleId, r.item, r.answer ?? null]),
      );
      const parsed = parseCsv(csv.text);
      expect(parsed).toEqual(json.body);
    }
  });

  it("exports one item and split when asked", async () => {
    const json = await wb.get<{ item: string; split: string }[]>(
      `/api/runs/${runA.id}/export.json?item=sex&split=test`,
    );
    texts.push(json.text);
    expect(json.body.length).toBeGreaterThan(0);
    expect(json.body.every((r) => r.item === "sex" && r.split === "test")).toBe(true);
  });
});

describe("OpenAPI", () => {
  it("documents every analysis route with its query and body schemas", async () => {
    const doc = await wb.get<{ paths: Record<string, Record<string, { parameters?: { name: string }[] }>> }>(
      "/docs/json",
    );
    expect(doc.status).toBe(200);
    const paths = doc.body.paths;
    for (const p of [
      "/api/runs/{id}/report",
      "/api/runs/{id}/report.json",
      "/api/runs/{id}/items",
      "/api/runs/{id}/calibrations",
      "/api/calibrations",
      "/api/calibrations/{id}",
      "/api/calibrations/{id}/file",
      "/api/calibrations/import",
      "/api/runs/{id}/check",
      "/api/compare",
      "/api/runs/{id}/export.csv",
      "/api/runs/{id}/export.json",
    ]) {
      expect(paths[p], p).toBeDefined();
    }
    const names = (paths["/api/runs/{id}/report"].get.parameters ?? []).map((x) => x.name);
    expect(names).toEqual(
      expect.arrayContaining(["item", "split", "bins", "binning", "view", "resamples", "ci"]),
    );
  });
});

describe("keys", () => {
  it("appear in no analysis response or export", () => {
    expect(texts.length).toBeGreaterThan(30);
    for (const t of texts) expect(t.includes(KEY)).toBe(false);
  });
});
