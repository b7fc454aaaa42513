import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { mulberry32, type Random } from "@decision-workbench/calibration";
import { bundledTask, NOT_STATED, type Task } from "@decision-workbench/datasets";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { AnalysisData } from "../src/analysis/data.js";
import { type ItemSpec, inferSpec, taskSpecs } from "../src/analysis/item-spec.js";
import { itemData } from "../src/analysis/matrix.js";
import { itemReport } from "../src/analysis/report.js";
import { ANSWER_ROW, answerParams } from "../src/storage/answer-rows.js";
import { AlreadyStored } from "../src/storage/errors.js";
import { columnsOf } from "../src/storage/item-columns.js";
import { itemValues, valueColumns } from "../src/storage/item-values.js";
import { MIGRATIONS, migrate } from "../src/storage/migrations.js";
import { runToParams } from "../src/storage/rows.js";
import { openStorage } from "../src/storage/sqlite.js";
import type { ExampleResult, PredictionRow } from "../src/storage/types.js";
import { storedRun, syntheticTask } from "./fixtures.js";
import { tempDir } from "./helpers.js";
import { rowsOf } from "./storage-contract.js";

const tmp = tempDir();
/** The schema version of this code. */
const LATEST = MIGRATIONS[MIGRATIONS.length - 1].version;
afterAll(() => tmp.cleanup());

/** How version 2 stored an answered example: one run_examples row, one predictions row per item. */
const V2_EXAMPLE = `INSERT INTO run_examples (run_id, example_id, ordinal, split, ms, served_by, failed, record)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
const V2_PREDICTION = `INSERT INTO predictions (run_id, ordinal, item_index, example_id, item, split, gold, status, answer,
  confidence, probabilities, logits, unknown, reason, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** Inserts a runs row of the columns `params` names (an older version's lack later ones). */
function insertRun(db: Database.Database, params: Record<string, unknown>): void {
  const columns = Object.keys(params);
  db.prepare(
    `INSERT INTO runs (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`,
  ).run(params);
}

/** What a request without usage (the reference server's replies here) adds to a run's tokens and cost. */
const NO_USAGE = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cost: 0 };

/** The answered example of `predictions` (one per item) at `ordinal` of a run. */
function answered(ordinal: number, predictions: PredictionRow[], ms = 1): ExampleResult {
  const { runId, exampleId, split, servedBy } = predictions[0];
  const failed = predictions.every((p) => p.status === "escalated");
  return { runId, exampleId, ordinal, split, ms, servedBy, ...NO_USAGE, failed, predictions };
}

/** The predictions of example k of a run: every kind of value a column can hold, numbers at full precision. */
function predictionsOf(runId: string, k: number): PredictionRow[] {
  const exampleId = `ex-${(k * 7919) % 10007}`; // ids out of run order
  const split = (["train", "calibration", "test"] as const)[k % 3];
  const servedBy = k % 5 === 0 ? null : k % 2 ? "m-2" : "m-3";
  const record = { endpoint: "http://x/v1/decision", model: "m", ms: 10 + k / 3, questions: 4 };
  const p = 1 / (3 + (k % 11)); // 0.333…, 0.25, …: 16-17 significant digits
  const escalated = k % 13 === 0;
  const single: PredictionRow = {
    runId,
    exampleId,
    split,
    item: 'tone "quoted" é',
    gold: k % 4 === 0 ? null : "calm",
    status: escalated ? "escalated" : k % 3 === 0 ? "unknown" : "answered",
    answer: escalated || k % 3 === 0 ? null : "calm",
    confidence: escalated ? null : 1 - p,
    probabilities: escalated ? null : { calm: 1 - p, angry: p / 2, "not stated": p / 2 },
    logits: escalated ? [] : [Math.log(1 - p), Math.log(p / 2)],
    unknown: escalated ? null : Math.log(p / 2),
    reason: escalated
      ? "the decision service did not answer after 3 attempts: HTTP 503"
      : k % 3 === 0
        ? "not stated"
        : null,
    record:
      k % 7 === 0 ? { ...record, reasoning: { text: `why ${k}`, tokens: k, thought: true } } : { ...record },
    servedBy,
  };
  const multi: PredictionRow = {
    ...single,
    item: "topics",
    gold: k % 4 === 1 ? [] : ["refund", "delivery"],
    status: escalated ? "escalated" : "answered",
    answer: escalated ? null : ["refund"],
    probabilities: escalated ? null : { refund: 1 - p, delivery: p },
    logits: escalated ? [] : [Math.log((1 - p) / p), Math.log(p / (1 - p))],
    unknown: null,
    reason: escalated ? single.reason : null,
    record: { ...record },
  };
  return [single, multi];
}

/** Writes a version-2 file with two runs (the first over the migration's 1,000-example page). */
function versionTwoFile(path: string, runs: [string, number][]): PredictionRow[] {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  migrate(db, MIGRATIONS.slice(0, 2));
  const example = db.prepare(V2_EXAMPLE);
  const prediction = db.prepare(V2_PREDICTION);
  const expected: PredictionRow[] = [];
  for (const [runId, count] of runs) {
    // the columns of later migrations are not there yet
    const {
      max_cost: _c,
      max_input_tokens: _t,
      stop_reason: _s,
      items: _i,
      created_by: _b,
      name: _n,
      note: _o,
      stats: _st,
      ...r
    } = runToParams(storedRun(runId, { total: count, dataset: "vanished" }));
    insertRun(db, r);
    db.transaction(() => {
      // written in reverse: the migration must list them in run order all the same
      for (let k = count - 1; k >= 0; k--) {
        const rows = predictionsOf(runId, k);
        const { reasoning: _reasoning, ...record } = rows[0].record;
        const failed = rows.every((p) => p.status === "escalated") ? 1 : 0;
        example.run(
          runId,
          rows[0].exampleId,
          k,
          rows[0].split,
          record.ms,
          rows[0].servedBy,
          failed,
          json(record),
        );
        rows.forEach((p, i) => {
          prediction.run(
            runId,
            k,
            i,
            p.exampleId,
            p.item,
            p.split,
            json(p.gold),
            p.status,
            json(p.answer),
            p.confidence,
            json(p.probabilities),
            JSON.stringify(p.logits),
            p.unknown,
            p.reason,
            json(p.record.reasoning),
          );
        });
      }
    })();
    for (let k = 0; k < count; k++) expected.push(...predictionsOf(runId, k));
  }
  db.close();
  return expected;
}

describe("migration 3: one row per answered example", () => {
  it("packs every prediction of a version-2 file into its example's row, exactly, in run order", async () => {
    mkdirSync(join(tmp.dir, "v2"));
    const path = join(tmp.dir, "v2", "workbench.sqlite");
    const runs: [string, number][] = [
      ["run_big", 1500],
      ["run_small", 40],
    ];
    const expected = versionTwoFile(path, runs);
    const storage = openStorage(path);
    try {
      const db = new Database(path, { readonly: true });
      expect(db.pragma("user_version", { simple: true })).toBe(LATEST);
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      expect(tables).not.toContain("predictions");
      expect(tables).toContain("run_examples");
      db.close();
      for (const [runId] of runs) {
        const listed = await storage.listPredictions(runId);
        expect(listed).toEqual(expected.filter((p) => p.runId === runId));
      }
      // one item and split, as listed and as its analysis columns (specs read from the decisions: no dataset)
      const wanted = expected.filter(
        (p) => p.runId === "run_big" && p.item === "topics" && p.split === "test",
      );
      expect(await storage.listPredictions("run_big", { item: "topics", split: "test" })).toEqual(wanted);
      const specs = (await storage.getRun("run_big"))?.items ?? [];
      expect(specs.map((s) => [s.name, s.kind])).toEqual([
        ['tone "quoted" é', "choice"],
        ["topics", "multi"],
      ]);
      const columns = await storage.itemColumns("run_big", 1, ["test"]);
      expect(columns.exampleIds.list()).toEqual(wanted.map((r) => r.exampleId));
      expect(Array.from(columns.confidence, (c) => (Number.isNaN(c) ? null : c))).toEqual(
        wanted.map((r) => r.confidence),
      );
      expect(Array.from(columns.served, (c) => (c < 0 ? null : columns.servedNames[c]))).toEqual(
        wanted.map((r) => r.servedBy),
      );
      expect((await storage.storedOrdinals("run_small", 0, 1000)).length).toBe(40);
      expect(await storage.servedModels("run_small")).toEqual(["m", "m-2", "m-3"]);
      expect(await storage.integrityCheck()).toBe("ok");
      // an example is still stored once only
      const again = expected.filter((p) => p.runId === "run_small").slice(0, 2);
      await expect(storage.recordExample(answered(99, again))).rejects.toThrow(AlreadyStored);
    } finally {
      await storage.close();
    }
  });

  it("leaves a file at its version, tables untouched, when a migration's row move fails", () => {
    const db = new Database(":memory:");
    const steps = [
      { version: 1, name: "a", sql: "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);" },
      {
        version: 2,
        name: "b",
        sql: "CREATE TABLE b (x INTEGER); DELETE FROM a;",
        run: () => {
          throw new Error("row move failed");
        },
      },
    ];
    expect(migrate(db, steps.slice(0, 1))).toBe(1);
    expect(() => migrate(db, steps)).toThrow("row move failed");
    expect(db.pragma("user_version", { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(["a"]);
    expect(db.prepare("SELECT count(*) FROM a").pluck().get()).toBe(1);
    db.close();
  });
});

describe("migration 4: each answer's logits in a column of their own", () => {
  it("moves every item's logits out of the items, exactly, and new answers are written that way", async () => {
    mkdirSync(join(tmp.dir, "v3"));
    const path = join(tmp.dir, "v3", "workbench.sqlite");
    const expected = versionTwoFile(path, [
      ["run_big", 1200],
      ["run_small", 30],
    ]);
    const db = new Database(path);
    migrate(db, MIGRATIONS.slice(0, 3));
    const read = (sql: string) => db.prepare(sql).raw().all() as [string, number, string, string?][];
    const before = read("SELECT run_id, ordinal, items FROM run_examples ORDER BY run_id, ordinal");
    expect(migrate(db)).toBe(LATEST);
    const after = read("SELECT run_id, ordinal, items, logits FROM run_examples ORDER BY run_id, ordinal");
    db.close();
    expect(after.length).toBe(1230);
    after.forEach(([runId, ordinal, items, logits], k) => {
      const old = JSON.parse(before[k][2]) as unknown[][];
      expect([runId, ordinal]).toEqual(before[k].slice(0, 2));
      expect(JSON.parse(items)).toEqual(old.map((i) => i.map((v, j) => (j === 6 ? null : v))));
      expect(JSON.parse(logits as string)).toEqual(old.map((i) => i[6]));
    });
    const storage = openStorage(path);
    try {
      expect(await storage.listPredictions("run_small")).toEqual(
        expected.filter((p) => p.runId === "run_small"),
      );
      // an answer written now: logits apart, read back with their item (one item asked for, the second)
      const rows = predictionsOf("run_small", 30).map((p) => ({ ...p, exampleId: "ex-new" }));
      await storage.recordExample(answered(30, rows));
      const raw = new Database(path, { readonly: true });
      const [items, logits] = raw
        .prepare("SELECT items, logits FROM run_examples WHERE run_id = 'run_small' AND ordinal = 30")
        .raw()
        .get() as [string, string];
      raw.close();
      expect((JSON.parse(items) as unknown[][]).map((i) => i[6])).toEqual([null, null]);
      expect(JSON.parse(logits)).toEqual(rows.map((p) => p.logits));
      const topics = await storage.listPredictions("run_small", { item: "topics" });
      expect(topics.at(-1)?.logits).toEqual(rows[1].logits);
      expect(topics.at(-1)?.exampleId).toBe("ex-new");
      // a row written the version-3 way into the migrated file (a process still on the old code): its inline
      // logits are read
      const old = new Database(path);
      old
        .prepare(
          "INSERT INTO run_examples (run_id, ordinal, example_id, split, ms, served_by, failed, record, items) VALUES ('run_small', 31, 'ex-old', 'test', 1, NULL, 0, '{}', ?)",
        )
        .run(
          JSON.stringify([
            ["topics", null, "answered", ["p"], 0.5, { p: 0.5 }, [0.25, -1], null, null, null],
          ]),
        );
      old.close();
      expect((await storage.listPredictions("run_small", { item: "topics" })).at(-1)?.logits).toEqual([
        0.25, -1,
      ]);
    } finally {
      await storage.close();
    }
  });
});

describe("migration 5: a pending upload's owner", () => {
  it("adds the column to a version-4 file; its uploads stay complete, readable and deletable", async () => {
    mkdirSync(join(tmp.dir, "v4"));
    const path = join(tmp.dir, "v4", "workbench.sqlite");
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    migrate(db, MIGRATIONS.slice(0, 4));
    const task = { name: "old", description: "d", provenance: {}, items: [] };
    db.prepare(
      "INSERT INTO datasets (name, task, hash, examples, splits, created_at) VALUES ('old', ?, 'h', 2, ?, 't')",
    ).run(JSON.stringify(task), JSON.stringify({ train: 1, calibration: 0, test: 1 }));
    const example = db.prepare(
      "INSERT INTO examples (dataset, ordinal, id, split, state, labels, meta) VALUES ('old', ?, ?, ?, ?, '{}', NULL)",
    );
    example.run(0, "a", "train", JSON.stringify("alpha"));
    example.run(1, "b", "test", JSON.stringify("beta"));
    db.close();

    const storage = openStorage(path);
    try {
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma("user_version", { simple: true })).toBe(LATEST);
      const columns = raw.pragma("table_info(datasets)") as { name: string; type: string }[];
      expect(columns.find((c) => c.name === "pending")).toMatchObject({ type: "TEXT" });
      expect(raw.prepare("SELECT pending FROM datasets WHERE name = 'old'").pluck().get()).toBeNull();
      raw.close();
      expect(await storage.abandoned).toEqual([]);
      expect((await storage.listUploads()).map((u) => u.name)).toEqual(["old"]);
      expect((await storage.allExamples("old")).map((e) => e.state)).toEqual(["alpha", "beta"]);
      expect((await storage.pageExamples("old", { offset: 0, limit: 5, split: "test" })).total).toBe(1);
      await storage.deleteUpload("old");
      expect(await storage.getUpload("old")).toBeUndefined();
      expect(await storage.allExamples("old")).toEqual([]);
      expect(await storage.integrityCheck()).toBe("ok");
    } finally {
      await storage.close();
    }
  });
});

/**
 * The decisions of example k of a run on items `specs`, as a run engine stores them: every status, golds that
 * are options, `not stated`, none or (multi-label) lists, some examples not answered at all.
 */
function decisionsOf(runId: string, specs: readonly ItemSpec[], k: number, rand: Random): PredictionRow[] {
  const exampleId = `x${(k * 7919) % 10007}`;
  const split = (["train", "calibration", "test"] as const)[k % 3];
  const servedBy = k % 5 === 0 ? null : k % 2 ? "m-2" : "m-3";
  const escalated = k % 17 === 0;
  const record = { endpoint: "http://x/v1/decision", model: "m", ms: 5 + k, questions: specs.length };
  return specs.map((spec) => {
    const columns = valueColumns(spec);
    const base = { runId, exampleId, split, item: spec.name, record: { ...record }, servedBy, unknown: null };
    if (escalated) {
      const gold = spec.kind === "multi" ? [spec.options[0]] : spec.options[0];
      const reason = "the decision service did not answer after 3 attempts: HTTP 503";
      return {
        ...base,
        gold,
        status: "escalated",
        answer: null,
        confidence: null,
        probabilities: null,
        logits: [],
        reason,
      };
    }
    const p = columns.map(() => rand.float());
    if (spec.kind === "multi") {
      const probabilities = Object.fromEntries(columns.map((c, j) => [c, p[j]]));
      const gold = k % 9 === 0 ? null : spec.options.filter(() => rand.float() < 0.4);
      const answer = spec.options.filter((_, j) => p[j] >= 0.5);
      const confidence = Math.max(...p);
      return {
        ...base,
        gold,
        status: "answered",
        answer,
        confidence,
        probabilities,
        logits: p.map(Math.log),
        reason: null,
      };
    }
    const sum = p.reduce((a, b) => a + b, 0);
    const probabilities = Object.fromEntries(columns.map((c, j) => [c, p[j] / sum]));
    const top = columns.reduce((a, c) => (probabilities[c] > probabilities[a] ? c : a));
    const gold = k % 11 === 0 ? null : columns[rand.below(columns.length)];
    const unknown = top === NOT_STATED;
    return {
      ...base,
      gold,
      status: unknown ? "unknown" : "answered",
      answer: unknown ? null : top,
      confidence: probabilities[top],
      probabilities,
      logits: columns.map((c) => Math.log(probabilities[c])),
      reason: unknown ? "not stated" : null,
    };
  });
}

/** How version 4 to 7 stored an answered example, as the writer still does (answer-rows.ts: items packed, logits apart). */
const V7_EXAMPLE = `INSERT INTO run_examples (${Object.values(ANSWER_ROW).join(", ")})
  VALUES (${Object.keys(ANSWER_ROW)
    .map((f) => `@${f}`)
    .join(", ")})`;

/** Writes a version-7 file with runs of the given datasets and items; returns each run's decisions by example. */
function versionSevenFile(
  path: string,
  runs: { id: string; dataset: string; specs: ItemSpec[]; count: number }[],
  upload: Task,
): Map<string, PredictionRow[][]> {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  migrate(db, MIGRATIONS.slice(0, 7));
  db.prepare(
    "INSERT INTO datasets (name, task, hash, examples, splits, created_at, pending) VALUES (?, ?, 'h', 0, ?, 't', NULL)",
  ).run(upload.name, JSON.stringify(upload), JSON.stringify({ train: 0, calibration: 0, test: 0 }));
  const example = db.prepare(V7_EXAMPLE);
  const out = new Map<string, PredictionRow[][]>();
  runs.forEach((run, r) => {
    const {
      items: _items,
      created_by: _by,
      name: _name,
      note: _note,
      stats: _stats,
      ...params
    } = runToParams(storedRun(run.id, { dataset: run.dataset, total: run.count }));
    insertRun(db, params);
    db.prepare(
      "INSERT INTO analysis_cache (run_id, key, version, data) VALUES (?, 'item:0', 'done|1', x'00')",
    ).run(run.id);
    const rand = mulberry32(r + 1);
    const examples = Array.from({ length: run.count }, (_, k) => decisionsOf(run.id, run.specs, k, rand));
    db.transaction(() => {
      // written in reverse: run order is the ordinal all the same
      for (let k = run.count - 1; k >= 0; k--) {
        example.run(answerParams(answered(k, examples[k], examples[k][0].record.ms)));
      }
    })();
    out.set(run.id, examples);
  });
  db.close();
  return out;
}

describe("migration 8: each decision's analysis columns", () => {
  const upload = syntheticTask("tickets-v7");
  const gone: ItemSpec[] = [
    { name: "mood", kind: "choice", options: ["calm", "angry"], notStated: true },
    { name: "tags", kind: "multi", options: ["x", "y", "z"], notStated: false },
  ];
  const runs = [
    { id: "run_penguins", dataset: "penguins", specs: taskSpecs(bundledTask("penguins")), count: 1200 },
    { id: "run_spam", dataset: "spam-assassin", specs: taskSpecs(bundledTask("spam-assassin")), count: 300 },
    { id: "run_upload", dataset: upload.name, specs: taskSpecs(upload as Task), count: 200 },
    { id: "run_gone", dataset: "deleted-long-ago", specs: gone, count: 400 },
  ];

  it("gives every stored decision its row, each run its items, and reports equal to the decisions' own", async () => {
    mkdirSync(join(tmp.dir, "v7"));
    const path = join(tmp.dir, "v7", "workbench.sqlite");
    const stored = versionSevenFile(path, runs, upload as Task);
    const storage = openStorage(path);
    try {
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma("user_version", { simple: true })).toBe(LATEST);
      const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
      expect(tables).not.toContain("analysis_cache");
      expect(tables).toContain("item_values");
      raw.close();
      const data = new AnalysisData(storage);
      for (const run of runs) {
        const examples = stored.get(run.id) ?? [];
        const items = (await storage.getRun(run.id))?.items;
        // the dataset's task; for a dataset that is gone, read from the decisions (the same specs here)
        expect(items).toEqual(run.specs);
        if (run.id === "run_gone") {
          const of = (name: string) => examples.flat().filter((p) => p.item === name);
          expect(items).toEqual(gone.map((s) => inferSpec(s.name, of(s.name))));
        }
        expect(await storage.listPredictions(run.id)).toEqual(examples.flat());
        const loaded = await data.run(run.id);
        for (const [index, spec] of run.specs.entries()) {
          const decisions = examples.map((rows) => rows[index]);
          const values = decisions.map((p, k) => itemValues(spec, { ...p, ordinal: k }, p));
          expect(rowsOf(await storage.itemColumns(run.id, index))).toEqual(
            rowsOf(columnsOf(valueColumns(spec).length, values)),
          );
          for (const split of ["all", "test"] as const) {
            const rows = split === "all" ? decisions : decisions.filter((p) => p.split === split);
            const report = await data.report(loaded, { item: spec.name, split, resamples: 100 });
            expect(report).toEqual(itemReport(itemData(spec, rows), split, { resamples: 100 }));
            expect(report.counts.total).toBe(rows.length);
          }
        }
      }
      // a new answer to a migrated run is stored beside the migrated ones
      const next = decisionsOf("run_spam", runs[1].specs, 300, mulberry32(9)).map((p) => ({
        ...p,
        exampleId: "new",
      }));
      await storage.recordExample(answered(300, next));
      const columns = await storage.itemColumns("run_spam", 1);
      expect(columns.n).toBe(301);
      expect(columns.exampleIds.list().at(-1)).toBe("new");
      expect(await storage.integrityCheck()).toBe("ok");
    } finally {
      await storage.close();
    }
  });

  it("gives an item its run's dataset does not name a spec read from its decisions, and keeps them", async () => {
    mkdirSync(join(tmp.dir, "v7-extra"));
    const path = join(tmp.dir, "v7-extra", "workbench.sqlite");
    const specs = [...taskSpecs(bundledTask("penguins")), gone[1]];
    const stored = versionSevenFile(
      path,
      [{ id: "run_extra", dataset: "penguins", specs, count: 50 }],
      upload as Task,
    );
    const storage = openStorage(path);
    try {
      const decisions = (stored.get("run_extra") ?? []).map((rows) => rows[3]);
      const items = (await storage.getRun("run_extra"))?.items ?? [];
      expect(items).toEqual([...taskSpecs(bundledTask("penguins")), inferSpec("tags", decisions)]);
      expect((await storage.itemColumns("run_extra", 3)).n).toBe(50);
    } finally {
      await storage.close();
    }
  });
});
