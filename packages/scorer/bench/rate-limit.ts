/**
 * A run against a rate-limited reference server (`--rate-limit 50/s`, a token bucket of 50): N requests of one
 * yes/no item each at concurrency C through scorer.score, under several retry settings. Printed per setting:
 * escalations, 429s as a share of requests sent, and the run's time over the ideal N / rate.
 *
 *   node --import tsx bench/rate-limit.ts     (after `pnpm build` of this package and apps/decision-server;
 *     env BENCH_N requests, default 1000; BENCH_C concurrency, default 32; BENCH_RATE per second, default 50)
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { DecisionScorer, type Opener, type ScorerOptions, undiciOpener } from "../dist/index.js";
import { referenceServer } from "./servers.js";

recordResults(import.meta.url, "runs against a rate-limited server");

const N = Number(process.env.BENCH_N ?? 1000);
const C = Number(process.env.BENCH_C ?? 32);
const RATE = Number(process.env.BENCH_RATE ?? 50);

const settings: [string, ScorerOptions][] = [
  ["contract defaults (2 retries, 1 s backoff)", {}],
  ["8 retries, 0.01 s backoff, Retry-After honoured", { retries: 8, backoff: 0.01 }],
  ["8 retries, 0.01 s backoff, Retry-After ignored", { retries: 8, backoff: 0.01, maxRetryWait: 0 }],
  ["8 retries, 0.01 s backoff, Retry-After, jitter", { retries: 8, backoff: 0.01, jitter: true }],
];

async function run(name: string, options: ScorerOptions): Promise<void> {
  const server = await referenceServer("--rate-limit", `${RATE}/s`);
  try {
    let sent = 0;
    let limited = 0;
    const opener: Opener = async (req) => {
      sent++;
      const res = await undiciOpener(req);
      if (res.status === 429) limited++;
      return res;
    };
    const scorer = new DecisionScorer(server.url, "lexical", undefined, { ...options, opener });
    const item = { name: "urgent", kind: "yesno" as const, question: "Is this message urgent?" };
    let next = 0;
    let escalated = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (next < N) {
          const k = next++;
          const [out] = await scorer.score(`message ${k}: the parcel is late again`, [item]);
          if (out.escalate !== undefined) escalated++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const ideal = N / RATE;
    console.log(
      `${name.padEnd(50)} escalated ${String(escalated).padStart(4)} of ${N}   429s ${((100 * limited) / sent).toFixed(1).padStart(5)} % of ${String(sent).padStart(5)} sent   time / ideal ${(seconds / ideal).toFixed(3)}`,
    );
  } finally {
    server.child.kill("SIGTERM");
  }
}

console.log(`rate limit ${RATE}/s, ${N} requests, concurrency ${C}, load average ${loadavg()[0].toFixed(1)}`);
for (const [name, options] of settings) await run(name, options);
console.log(`load average ${loadavg()[0].toFixed(1)}`);
