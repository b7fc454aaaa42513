// Every analysis route's output on deterministic runs, as one JSON file: run before and after a change to the
// storage or analysis, then compare the two files. Not a timing bench: it proves "no behaviour lost".
//
//   node --import tsx bench/snapshot.ts OUT.json            (build the workspace first: the API runs from dist)
//   node --import tsx bench/snapshot.ts --compare A.json B.json
//
// It writes synthetic runs through the storage (openStorage, insertRun, recordExample, updateRun) into a fresh
// data folder, starts the built workbench on it (`workbench serve --no-reference`, WORKBENCH_DATA_DIR), calls every
// GET route of runs, reports, items, compare, exports, calibrations and servers with several query variants, POSTs
// fits and checks, and writes each answer (status and body) under "METHOD path". The runs' own timestamps are fixed;
// what legitimately differs between two processes is replaced (see NORMALISED) before writing.
//
// The runs (real example ids of the bundled datasets first, so the items route shows states; then synthetic ids):
//   weather_a, weather_b   seattle-weather, 1 item of 5 options, every split, 1,461 examples; b served by two models
//   weather_c              seattle-weather, cancelled after 400 examples
//   penguins_a, penguins_b penguins, 3 items (choice; score; choice with "not stated"), calibration + test, 1,500
//   spam_a                 spam-assassin, yesno + multi-label, calibration + test, 3,000 examples
//   brown_a                brown-genres, 15 options, test only, 1,000 examples
// Each has ~2 % failed examples (every item escalated), ~1 % single escalated items, 0.5 % unlabelled rows
// (synthetic ids only), reasoning on ~10 % of the answers and Unknowns where an item allows "not stated".

import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { itemOptionNames, loadDataset } from "@decision-workbench/datasets";
import { openStorage } from "../src/storage/sqlite.js";
import { startApi } from "./api-child.js";
import { type RunPlan, writeRun } from "./synthetic-runs.js";

const RUNS: RunPlan[] = [
  {
    id: "run_weather_a",
    dataset: "seattle-weather",
    splits: ["train", "calibration", "test"],
    examples: 1461,
    seed: 1,
    model: "bayes-1",
    served: ["bayes-1", "bayes-1"],
    status: "done",
  },
  {
    id: "run_weather_b",
    dataset: "seattle-weather",
    splits: ["train", "calibration", "test"],
    examples: 1461,
    seed: 2,
    model: "bayes-2",
    served: ["bayes-2", "bayes-2-0611"],
    status: "done",
  },
  {
    id: "run_weather_c",
    dataset: "seattle-weather",
    splits: ["train", "calibration", "test"],
    examples: 400,
    seed: 3,
    model: "bayes-3",
    served: ["bayes-3", "bayes-3"],
    status: "cancelled",
  },
  {
    id: "run_penguins_a",
    dataset: "penguins",
    splits: ["calibration", "test"],
    examples: 1500,
    seed: 4,
    model: "bayes-1",
    served: ["bayes-1", "bayes-1"],
    status: "done",
  },
  {
    id: "run_penguins_b",
    dataset: "penguins",
    splits: ["calibration", "test"],
    examples: 1500,
    seed: 5,
    model: "bayes-2",
    served: ["bayes-2", "bayes-2"],
    status: "done",
  },
  {
    id: "run_spam_a",
    dataset: "spam-assassin",
    splits: ["calibration", "test"],
    examples: 3000,
    seed: 6,
    model: "lexical",
    served: ["lexical", "lexical"],
    status: "done",
  },
  {
    id: "run_brown_a",
    dataset: "brown-genres",
    splits: ["test"],
    examples: 1000,
    seed: 7,
    model: "lexical",
    served: ["lexical", "lexical"],
    status: "done",
  },
];

/**
 * What legitimately differs between two processes, replaced before writing: ids the API generates at random
 * (calibrations, servers; replaced by `<cal#1>`, `<srv#1>`... in order of appearance) and the times it stamps
 * (values of these keys, replaced by "<time>"), and measured durations.
 */
const NORMALISED = {
  ids: [/\bcal_[0-9a-f]{12}\b/g, /\bsrv_[0-9A-Za-z_-]{12}/g],
  /** Keys whose value is a time the API stamps when it answers (calibrations, imported files, servers). */
  timeKeys: ["createdAt", "created_at", "updatedAt"],
  /** Run ids' own timestamps are fixed by this bench, so their createdAt, startedAt, finishedAt are kept. */
  runTimeKeysKept: ["startedAt", "finishedAt"],
};

function normalise(text: string, ids: Map<string, string>): string {
  let out = text;
  for (const re of NORMALISED.ids) {
    out = out.replace(re, (id) => {
      let v = ids.get(id);
      if (!v) {
        v = `<${id.split("_")[0]}#${[...ids.values()].filter((x) => x.startsWith(`<${id.split("_")[0]}#`)).length + 1}>`;
        ids.set(id, v);
      }
      return v;
    });
  }
  return out;
}

/** Replaces the values of API-stamped time keys, except on run objects (whose times this bench fixed). */
function dropTimes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropTimes);
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  const isRun = typeof o.id === "string" && o.id.startsWith("run_");
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) {
    const fixedRunTime = isRun && (k === "createdAt" || NORMALISED.runTimeKeysKept.includes(k));
    out[k] =
      NORMALISED.timeKeys.includes(k) && !fixedRunTime && typeof x === "string" ? "<time>" : dropTimes(x);
  }
  return out;
}

/** The calls, in order; a POST's body may use what earlier answers returned. */
async function callAll(url: string): Promise<Record<string, unknown>> {
  const ids = new Map<string, string>();
  const snap: Record<string, unknown> = {};
  /** One call, kept under "METHOD path [body]" (`label` in place of a long body; a file in a body as "<file>"). */
  async function call(path: string, body?: unknown, label?: string) {
    const method = body === undefined ? "GET" : "POST";
    const shown =
      body === undefined ? "" : ` ${label ?? JSON.stringify(body, (k, v) => (k === "file" ? "<file>" : v))}`;
    const key = normalise(`${method} ${path}${shown}`, ids);
    const res = await fetch(url + path, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await res.text();
    const type = res.headers.get("content-type") ?? "";
    let answer: Record<string, unknown> = {};
    let parsed: unknown;
    if (type.includes("json")) {
      answer = JSON.parse(text);
      parsed = dropTimes(JSON.parse(normalise(text, ids)));
    } else {
      const shownText = normalise(text, ids);
      const lines = shownText.split("\n");
      parsed = {
        lines: lines.length,
        sha256: createHash("sha256").update(shownText).digest("hex"),
        text: lines,
      };
    }
    snap[key] = {
      status: res.status,
      type: type.split(";")[0],
      disposition: normalise(res.headers.get("content-disposition") ?? "", ids),
      body: parsed,
    };
    return answer;
  }

  await call("/api/datasets"); // also waits for the bundled datasets to be loaded (the items route shows states)
  const server = await call("/api/servers", {
    name: "snapshot",
    baseUrl: "http://127.0.0.1:9",
    models: ["bayes-1", "bayes-2"],
    deterministic: true,
  });
  await call("/api/servers");
  await call(`/api/servers/${server.id}`);
  await call("/api/runs");
  await call("/api/runs?dataset=penguins");
  await call("/api/runs?status=cancelled");
  await call("/api/runs?dataset=seattle-weather&status=done");

  for (const plan of RUNS) {
    const r = plan.id;
    const { task } = await loadDataset(plan.dataset);
    await call(`/api/runs/${r}`);
    const events = await fetch(`${url}/api/runs/${r}/events`, { signal: AbortSignal.timeout(10_000) });
    snap[`GET /api/runs/${r}/events`] = { status: events.status, body: (await events.text()).split("\n") };
    for (const [i, item] of task.items.entries()) {
      const base = `/api/runs/${r}/report?item=${encodeURIComponent(item.name)}`;
      await call(base);
      await call(`${base}&split=all`);
      for (const s of plan.splits) await call(`${base}&split=${s}`);
      if (i === 0 || item.kind === "multi" || item.notStated) {
        await call(`${base}&bins=10`);
        await call(`${base}&binning=mass`);
        await call(`${base}&view=classwise`);
        await call(`${base}&view=classwise&binning=mass&bins=5&split=all`);
        await call(`${base}&ci=all`);
        await call(`${base}&ci=headline`);
        await call(`${base}&interval=jeffreys`);
        await call(`${base}&resamples=200`);
      }
      const items = `/api/runs/${r}/items?item=${encodeURIComponent(item.name)}`;
      for (const filter of ["all", "wrong", "confident-wrong", "unknown", "escalated"]) {
        await call(`${items}&filter=${filter}`);
        await call(`${items}&filter=${filter}&split=${plan.splits.at(-1)}&offset=20&limit=30`);
      }
      await call(`${items}&limit=500`);
      const option = itemOptionNames(item)[0];
      await call(`${items}&filter=wrong&label=${encodeURIComponent(option)}`);
      await call(`${items}&label=${encodeURIComponent(option)}&split=all`);
    }
    await call(`/api/runs/${r}/report.json`);
    await call(`/api/runs/${r}/report.json?split=all&bins=10`);
    await call(`/api/runs/${r}/export.csv`);
    await call(`/api/runs/${r}/export.json`);
    await call(`/api/runs/${r}/export.csv?item=${encodeURIComponent(task.items[0].name)}&split=test`);
    await call(`/api/runs/${r}/export.json?split=${plan.splits[0]}`);
  }

  // compare
  const cmp = (runs: string, q = "") => call(`/api/compare?runs=${runs}${q}`);
  await cmp("run_weather_a,run_weather_b");
  await cmp("run_weather_a,run_weather_b", "&split=all&bins=10");
  await cmp("run_weather_a,run_weather_b,run_weather_c", "&split=calibration&offset=10&limit=20");
  await cmp("run_weather_b,run_weather_a", "&resamples=200");
  for (const item of ["species", "body_mass", "sex"]) {
    await cmp("run_penguins_a,run_penguins_b", `&item=${item}`);
    await cmp("run_penguins_a,run_penguins_b", `&item=${item}&split=all`);
  }

  // fits and checks
  const fits: Record<string, unknown>[] = [];
  const fit = async (r: string, body: Record<string, unknown>) => {
    const c = await call(`/api/runs/${r}/calibrations`, body);
    fits.push(c);
    return c;
  };
  const weather = await fit("run_weather_a", { method: "auto" });
  await fit("run_weather_a", { method: "temperature" });
  await fit("run_weather_a", { method: "isotonic", fitSplit: "train", evalSplit: "calibration" });
  await fit("run_weather_a", { methods: ["platt", "beta"], selectionSplit: "train" });
  const penguins = await fit("run_penguins_a", { method: "auto" });
  await fit("run_penguins_a", { item: "sex", method: "platt" });
  await fit("run_penguins_a", { item: "species", method: "vector", targetRisk: 0.05, conservative: true });
  await fit("run_penguins_a", { item: "body_mass", evalSplit: "crossfit", select: "brier" });
  await fit("run_spam_a", { method: "auto" });
  await fit("run_spam_a", { item: "properties", method: "histogram", bins: 10 });
  await fit("run_brown_a", {}); // test only: cross-fit on test
  await fit("run_brown_a", { method: "auto", fitSplit: "test", evalSplit: "crossfit", resamples: 100 });
  await call("/api/runs/run_weather_a/calibrations", { fitSplit: "test", evalSplit: "test" }); // 400
  await call("/api/calibrations");
  await call("/api/calibrations?runId=run_penguins_a");
  await call(`/api/calibrations/${weather.id}`);
  const file = await call(`/api/calibrations/${penguins.id}/file`);
  await call("/api/calibrations/import", file, "<the file of penguins_a's auto fit>");
  await call("/api/calibrations/import", { schema: "nope" }); // 400
  await call("/api/runs/run_weather_b/check", { calibrationId: weather.id });
  await call("/api/runs/run_weather_b/check", { calibrationId: weather.id, split: "all", bins: 10 });
  await call("/api/runs/run_penguins_b/check", { calibrationId: penguins.id });
  await call("/api/runs/run_penguins_b/check", { file, split: "calibration" });
  await call("/api/runs/run_weather_b/check", { calibrationId: penguins.id }); // 422: another dataset

  // errors
  await call("/api/runs/run_nope/report");
  await call("/api/runs/run_weather_a/report?item=nope");
  await call("/api/runs/run_brown_a/report?split=calibration");
  await call("/api/runs/run_weather_a/items?filter=nope");
  await call("/api/compare?runs=run_weather_a,run_penguins_a");
  await call("/api/compare?runs=run_weather_a,run_weather_a");
  await call("/api/runs/run_weather_a/export.csv?item=nope");
  return snap;
}

/** Every path where two snapshots differ, with both values (shortened). */
function differences(a: unknown, b: unknown, path: string, out: string[]): void {
  const show = (v: unknown) => {
    const s = JSON.stringify(v);
    return s === undefined ? "(absent)" : s.length > 160 ? `${s.slice(0, 160)}...` : s;
  };
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    out.push(`${path}: ${show(a)} -> ${show(b)}`);
    return;
  }
  if (a !== null && typeof a === "object") {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
      const p = Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`;
      if (!(k in ao)) out.push(`${p}: (absent) -> ${show(bo[k])}`);
      else if (!(k in bo)) out.push(`${p}: ${show(ao[k])} -> (absent)`);
      else differences(ao[k], bo[k], p, out);
    }
    return;
  }
  if (a !== b) out.push(`${path}: ${show(a)} -> ${show(b)}`);
}

function compare(fileA: string, fileB: string): number {
  const a = JSON.parse(readFileSync(fileA, "utf8")) as Record<string, unknown>;
  const b = JSON.parse(readFileSync(fileB, "utf8")) as Record<string, unknown>;
  let total = 0;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const out: string[] = [];
    differences(a[key], b[key], "", out);
    if (out.length === 0) continue;
    total += out.length;
    process.stdout.write(`${key} (${out.length} difference${out.length > 1 ? "s" : ""})\n`);
    for (const line of out.slice(0, 25)) process.stdout.write(`  ${line}\n`);
    if (out.length > 25) process.stdout.write(`  ... and ${out.length - 25} more\n`);
  }
  process.stdout.write(`${total} difference${total === 1 ? "" : "s"} in all\n`);
  return total;
}

async function main(out: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "wb-snapshot-"));
  const t0 = performance.now();
  const storage = openStorage(join(dir, "workbench.sqlite"));
  for (const plan of RUNS) await writeRun(storage, plan);
  await storage.close();
  process.stderr.write(`wrote ${RUNS.length} runs in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const api = await startApi(dir);
  try {
    const snap = await callAll(api.url);
    writeFileSync(out, `${JSON.stringify(snap, null, 1)}\n`);
    process.stderr.write(`${Object.keys(snap).length} answers written to ${out}\n`);
  } finally {
    const ended = new Promise((r) => api.proc.once("exit", r));
    api.proc.kill("SIGTERM");
    await ended;
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values, positionals } = parseArgs({
  options: { compare: { type: "boolean" } },
  allowPositionals: true,
});
if (values.compare) {
  if (positionals.length !== 2) throw new Error("usage: snapshot.ts --compare A.json B.json");
  process.exitCode = compare(positionals[0], positionals[1]) === 0 ? 0 : 1;
} else {
  if (positionals.length !== 1) throw new Error("usage: snapshot.ts OUT.json | --compare A.json B.json");
  await main(positionals[0]);
}
