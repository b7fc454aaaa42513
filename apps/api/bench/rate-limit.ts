/**
 * Rate limit benchmark: a run of N examples at concurrency C through the workbench (engine, lane, SQLite file)
 * against the reference server limited to RATE requests a second (429 with Retry-After beyond it). Printed per
 * setting: escalations, 429s as a share of requests sent, and the run's time over the ideal N / RATE.
 *   - the server's requestsPerMinute set to the limit: the lane paces every request;
 *   - no limit set: the lane learns the limit from 429s only (each pauses the lane for its Retry-After);
 *   - two runs of N / 2 at once on the limited server: the lane is shared.
 *
 *   node --import tsx bench/rate-limit.ts   (from apps/api; env BENCH_N default 2000, BENCH_C 32, BENCH_RATE 50)
 */

import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import type { RunSummary } from "../src/shapes/runs.js";
import { addDataset, addServer, reference, runToEnd, testBench } from "../test/helpers.js";

const N = Number(process.env.BENCH_N ?? 2000);
const C = Number(process.env.BENCH_C ?? 32);
const RATE = Number(process.env.BENCH_RATE ?? 50);

const bench = await testBench();
await addDataset(bench.app, N);

async function measure(name: string, server: Record<string, unknown>, runs: number): Promise<void> {
  const ref = await reference({ rateLimit: `${RATE}/s`, record: true });
  try {
    const serverId = await addServer(bench.app, ref.url, server);
    const input = {
      dataset: "tickets",
      serverId,
      model: "lexical",
      splits: ["train", "calibration", "test"],
      concurrency: C,
    };
    const started = performance.now();
    const done: RunSummary[] = await Promise.all(
      Array.from({ length: runs }, (_, i) =>
        runToEnd(bench, runs === 1 ? input : { ...input, splits: [["train", "calibration", "test"][i % 3]] }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const examples = done.reduce((s, r) => s + r.progress.done, 0);
    const escalated = done.reduce((s, r) => s + r.progress.escalated, 0);
    const sent = ref.requests.length;
    const limited = ref.rateLimited ?? 0;
    const ideal = examples / RATE;
    console.log(
      `${name.padEnd(44)} ${String(examples).padStart(5)} examples  escalated ${String(escalated).padStart(4)}   429s ${((100 * limited) / sent).toFixed(1).padStart(5)} % of ${String(sent).padStart(5)} sent   time / ideal ${(seconds / ideal).toFixed(3)}`,
    );
  } finally {
    await ref.close();
  }
}

console.log(`rate limit ${RATE}/s, ${N} examples, concurrency ${C}, load average ${loadavg()[0].toFixed(1)}`);
await measure("server's requestsPerMinute = the limit", { requestsPerMinute: RATE * 60 }, 1);
await measure("no limit set (429s pause the lane)", {}, 1);
await measure("three runs at once (one per split), shared", { requestsPerMinute: RATE * 60 }, 3);
console.log(`load average ${loadavg()[0].toFixed(1)}`);
await bench.close();
