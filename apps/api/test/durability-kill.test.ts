/**
 * An answer that has reached the workbench is kept: 10 SIGKILLs at random moments of runs at about 30 answers a
 * second, for `workbench serve` (the run resumed by each restart) and for `workbench run` (each run killed once and
 * resumed by the next `workbench serve`; a second `workbench run` starts a new run). The reference server's request
 * log says which answers had been sent whole before a kill (`answeredAt`) and were asked again after it; requests
 * still in flight at a kill must be asked again and do not count. DURABILITY_REPORT=1 prints the counts per kill.
 */

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { DecisionServerHandle, ReceivedRequest } from "@decision-workbench/decision-server";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { RunSummary } from "../src/shapes/runs.js";
import { type Child, json, listeningUrl, startRunOverHttp, workbench } from "./child.js";
import { syntheticExamples, uploadBody } from "./fixtures.js";
import { addDataset, reference, tempDir, testBench } from "./helpers.js";

const KILLS = 10;
/** 3 requests at a time, each answered 100 ms after it arrives: about 30 answers a second. */
const CONCURRENCY = 3;
const DELAY_MS = 100;
const tmp = tempDir();
const servers: DecisionServerHandle[] = [];

afterAll(async () => {
  for (const s of servers) await s.close();
  tmp.cleanup();
});

/** A reference server that answers its first `slowed` requests after DELAY_MS (the rest at once: a quick end). */
async function slowReference(slowed: number): Promise<DecisionServerHandle> {
  const on = Array.from({ length: slowed }, (_, i) => i + 1);
  const s = await reference({ faults: { rules: [{ on, fault: { kind: "delay", ms: DELAY_MS } }] } });
  servers.push(s);
  return s;
}

/**
 * The moment of a kill on both clocks of the request log: `at` (Date.now) and `answeredAt` (high resolution), the
 * reference servers being in this process. The two are not compared with each other (the wall clock may be slewed).
 */
interface Moment {
  wall: number;
  hr: number;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A random moment of a run: 0.1 to 2 s after it (re)started. */
const randomMoment = () => 100 + Math.random() * 1900;

/** SIGKILLs a workbench; resolves to the moment of the kill once it has exited. */
async function kill(child: Child): Promise<Moment> {
  const at = { wall: Date.now(), hr: performance.timeOrigin + performance.now() };
  child.proc.kill("SIGKILL");
  expect(await child.exited).toBe("SIGKILL");
  return at;
}

const examples = (count: number) => syntheticExamples(count) as { id: string; state: string }[];

/** What a request log says about the kills of a run over `count` examples. */
interface Asked {
  /** Per kill: answers sent whole before it and asked again after it. */
  reasked: number[];
  /** Examples asked again with no kill between (never allowed). */
  twiceWithoutKill: string[];
  /** Examples never asked. */
  neverAsked: string[];
  /** Per kill: examples stored before it and asked after it (never allowed). */
  storedAskedAgain: string[][];
}

/** How late after a kill a request the killed process sent may still be received (CI: a busy 2-core machine). */
const IN_FLIGHT_MS = 250;

function asked(requests: ReceivedRequest[], kills: Moment[], count: number, storedAt: Set<string>[]): Asked {
  const idOf = new Map(examples(count).map((e) => [e.state, e.id]));
  const byId = new Map<string, ReceivedRequest[]>();
  for (const r of requests) {
    const id = idOf.get(String((JSON.parse(r.body) as { state: unknown }).state)) ?? "?";
    byId.set(id, [...(byId.get(id) ?? []), r]);
  }
  const out: Asked = {
    reasked: kills.map(() => 0),
    twiceWithoutKill: [],
    neverAsked: [],
    storedAskedAgain: kills.map(() => []),
  };
  for (const { id } of examples(count)) {
    const rs = byId.get(id) ?? [];
    if (!rs.length) out.neverAsked.push(id);
    kills.forEach((at, k) => {
      if (storedAt[k].has(id) && rs.some((r) => r.at > at.wall)) out.storedAskedAgain[k].push(id);
    });
    for (let n = 1; n < rs.length; n++) {
      const before = rs[n - 1];
      // a request the killed process had sent can reach a loaded server a little after the kill: one received
      // within IN_FLIGHT_MS of it came before it (a restart takes far longer: seconds)
      const k = kills.findIndex((at) => at.wall + IN_FLIGHT_MS >= before.at && at.wall < rs[n].at);
      if (k < 0) out.twiceWithoutKill.push(id);
      else if (before.answeredAt !== undefined && before.answeredAt < kills[k].hr) out.reasked[k]++;
    }
  }
  return out;
}

function openDb(dataDir: string): Database.Database {
  return new Database(join(dataDir, "workbench.sqlite"), { readonly: true });
}

/** The example ids stored for a run. */
function storedIds(dataDir: string, runId: string): Set<string> {
  const db = openDb(dataDir);
  try {
    const ids = db.prepare("SELECT example_id FROM run_examples WHERE run_id = ?").pluck().all(runId);
    return new Set(ids as string[]);
  } finally {
    db.close();
  }
}

/** Rows stored per example of a run: how many examples have one, and how many more than one. */
function rowsPerExample(dataDir: string, runId: string): { examples: number; doubled: number } {
  const db = openDb(dataDir);
  try {
    const counts = db
      .prepare("SELECT count(*) FROM run_examples WHERE run_id = ? GROUP BY example_id")
      .pluck()
      .all(runId) as number[];
    return { examples: counts.length, doubled: counts.filter((n) => n > 1).length };
  } finally {
    db.close();
  }
}

/** Waits until none of the runs is running, through a workbench's API. */
async function settled(url: string, runIds: string[]): Promise<RunSummary[]> {
  for (;;) {
    const runs = await Promise.all(runIds.map((id) => json<RunSummary>(fetch(`${url}/api/runs/${id}`))));
    if (runs.every((r) => r.status !== "running")) return runs;
    await sleep(50);
  }
}

/** Checks a finished run: every example stored once, none asked twice but across a kill; the re-asks per kill. */
function checkRun(
  final: RunSummary,
  dataDir: string,
  server: DecisionServerHandle,
  count: number,
  kills: Moment[],
  storedAt: Set<string>[],
): number[] {
  expect(final.status).toBe("done");
  expect(final.progress.done).toBe(count);
  expect(rowsPerExample(dataDir, final.id)).toEqual({ examples: count, doubled: 0 });
  const log = asked(server.requests, kills, count, storedAt);
  expect(log.neverAsked).toEqual([]);
  expect(log.twiceWithoutKill).toEqual([]);
  expect(log.storedAskedAgain).toEqual(kills.map(() => []));
  return log.reasked;
}

function perKill(reasked: number[]): number {
  const mean = reasked.reduce((a, b) => a + b, 0) / reasked.length;
  if (process.env.DURABILITY_REPORT) {
    process.stderr.write(`re-asked after arrival, per kill: ${reasked.join(", ")}; mean ${mean}\n`);
  }
  return mean;
}

describe("10 SIGKILLs at random moments of runs at about 30 answers a second", () => {
  it("workbench serve, restarted after each kill: at most one arrived answer per kill is asked again", async () => {
    // about 650 requests at most before the last kill are slowed; the run has more examples, so it runs on
    const COUNT = 900;
    const slow = await slowReference(800);
    const dataDir = join(tmp.dir, "serve");
    const env = { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_SECRET_KEY: randomBytes(32).toString("hex") };
    let child = workbench(["serve", "--port", "0", "--no-reference"], env);
    let url = listeningUrl(await child.firstLine);
    const run = await startRunOverHttp<RunSummary>(url, {
      serverUrl: slow.url,
      upload: uploadBody(COUNT),
      dataset: "tickets",
      concurrency: CONCURRENCY,
    });
    const kills: Moment[] = [];
    const storedAt: Set<string>[] = [];
    for (let k = 0; k < KILLS; k++) {
      await sleep(randomMoment());
      kills.push(await kill(child));
      storedAt.push(storedIds(dataDir, run.id));
      expect(storedAt[k].size, `stored at kill ${k + 1}`).toBeLessThan(COUNT);
      child = workbench(["serve", "--port", "0", "--no-reference"], env);
      url = listeningUrl(await child.firstLine);
    }
    const [final] = await settled(url, [run.id]);
    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);

    const reasked = checkRun(final, dataDir, slow, COUNT, kills, storedAt);
    expect(
      perKill(reasked),
      `answers sent whole before a kill and asked again, per kill: ${reasked}`,
    ).toBeLessThanOrEqual(1);
  });

  it("workbench run, each killed once and resumed by workbench serve: at most one arrived answer per kill is asked again", async () => {
    const COUNT = 100;
    const dataDir = join(tmp.dir, "run");
    const env = { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_SECRET_KEY: randomBytes(32).toString("hex") };
    const bench = await testBench({ dir: dataDir });
    await addDataset(bench.app, COUNT);
    await bench.close();
    // one reference server per run, so that each run's requests are told apart
    const refs: DecisionServerHandle[] = [];
    const runIds: string[] = [];
    const kills: Moment[] = [];
    const storedAt: Set<string>[] = [];
    for (let k = 0; k < KILLS; k++) {
      const slow = await slowReference(80);
      refs.push(slow);
      const child = workbench(
        [
          "run",
          "--dataset",
          "tickets",
          "--server",
          slow.url,
          "--model",
          "lexical",
          "--split",
          "train,calibration,test",
          "--concurrency",
          String(CONCURRENCY),
        ],
        env,
      );
      for (;;) {
        const started = /^run (run_\S+): /m.exec(child.stderr());
        if (started) {
          runIds.push(started[1]);
          break;
        }
        if (child.proc.exitCode !== null) throw new Error(`workbench run ended early: ${child.stderr()}`);
        await sleep(5);
      }
      await sleep(randomMoment());
      kills.push(await kill(child));
      storedAt.push(storedIds(dataDir, runIds[k]));
      expect(storedAt[k].size, `stored at the kill of run ${k + 1}`).toBeLessThan(COUNT);
    }
    const serve = workbench(["serve", "--port", "0", "--no-reference"], env);
    const url = listeningUrl(await serve.firstLine);
    const finals = await settled(url, runIds);
    serve.proc.kill("SIGTERM");
    expect(await serve.exited).toBe(0);

    const reasked = finals.map(
      (final, k) => checkRun(final, dataDir, refs[k], COUNT, [kills[k]], [storedAt[k]])[0],
    );
    expect(
      perKill(reasked),
      `answers sent whole before a kill and asked again, per kill: ${reasked}`,
    ).toBeLessThanOrEqual(1);
  });
});
