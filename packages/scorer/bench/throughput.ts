/**
 * Throughput of scorer.score (3 items per request) against raw undici POSTs of the same bodies to the same
 * local server, in one run, at concurrency 1 and 64. Servers run in their own processes: the reference
 * decision server (lexical model) and a constant-reply node:http server, where the client's cost shows most.
 *
 * Two raw baselines, each on an Agent with the scorer's pool options: `raw request` is undici's `request()`
 * with `body.text()` (the usual way); `raw dispatch` is `dispatch()` with a handler that collects the reply,
 * the transport the scorer's default opener uses (like for like: the ratio against it is the scorer's own cost).
 *
 * Noisy machines: many short rounds; in each round every side runs once, in an order that cycles through all
 * six permutations. The headline is the median of the per-round paired ratios (scorer / raw req/s), with its
 * interquartile range, and the ratio of the per-side medians. Client CPU per request (user + system of this
 * process, all threads, so its garbage collection too) is measured per side: it is the figure other processes
 * disturb least. Targets: scorer >= 0.9 of raw undici's requests/s at concurrency 64; added latency < 0.2 ms
 * at concurrency 1.
 *
 *   node --import tsx bench/throughput.ts     (after `pnpm build`; env BENCH_MS per run, default 300;
 *     BENCH_ROUNDS rounds, default 24; BENCH_ONLY: some of nonet,reference,constant; BENCH_SRC=1: src/)
 */
import { loadavg } from "node:os";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { measure, median, quantile, type Sample } from "./measure.js";
import { DecisionScorer } from "./scorer.js";
import { CONSTANT_REPLY, constantServer, referenceServer, type Server } from "./servers.js";
import {
  items,
  nextState,
  questions,
  rawAgent,
  rawDispatchSide,
  rawRequestSide,
  scorerSide,
} from "./sides.js";

recordResults(import.meta.url, "scorer throughput against raw undici");

const MS = Number(process.env.BENCH_MS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 24);
const SIDES = ["raw request", "raw dispatch", "scorer"] as const;
type Side = (typeof SIDES)[number];
const ORDERS: Side[][] = [
  ["raw request", "raw dispatch", "scorer"],
  ["scorer", "raw dispatch", "raw request"],
  ["raw dispatch", "scorer", "raw request"],
  ["raw request", "scorer", "raw dispatch"],
  ["scorer", "raw request", "raw dispatch"],
  ["raw dispatch", "raw request", "scorer"],
];

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const fixed = (x: number, digits = 0) => x.toFixed(digits);

async function compare(label: string, server: Server): Promise<void> {
  const requestAgent = rawAgent();
  const dispatchAgent = rawAgent();
  const run: Record<Side, () => Promise<void>> = {
    "raw request": rawRequestSide(server.url, requestAgent),
    "raw dispatch": rawDispatchSide(server.url, dispatchAgent),
    scorer: scorerSide(server.url),
  };
  const pid = server.child.pid;
  for (const c of [1, 64]) {
    for (const side of SIDES) await measure(c, MS, run[side], pid);
    const rounds: Record<Side, Sample>[] = [];
    const before = load();
    for (let r = 0; r < ROUNDS; r++) {
      const round = {} as Record<Side, Sample>;
      for (const side of ORDERS[r % ORDERS.length]) round[side] = await measure(c, MS, run[side], pid);
      rounds.push(round);
    }
    const of = (f: (round: Record<Side, Sample>) => number) => median(rounds.map(f));
    const ratio = (raw: Side) => {
      const paired = rounds.map((round) => round.scorer.rps / round[raw].rps);
      return `${fixed(median(paired), 3)} (IQR ${fixed(quantile(paired, 0.25), 3)}-${fixed(quantile(paired, 0.75), 3)}), ratio of medians ${fixed(of((x) => x.scorer.rps) / of((x) => x[raw].rps), 3)}`;
    };
    const perSide = (f: (s: Sample) => number, digits = 0) =>
      SIDES.map(
        (side) =>
          `${side} ${fixed(
            of((round) => f(round[side])),
            digits,
          )}`,
      ).join(", ");
    console.log(
      [
        `${label} c=${c}  (load average ${before} before, ${load()} after; ${ROUNDS} rounds)`,
        `  req/s              ${perSide((s) => s.rps)}`,
        `  scorer / dispatch  ${ratio("raw dispatch")}   (like for like)`,
        `  scorer / request   ${ratio("raw request")}`,
        `  median latency ms  ${perSide((s) => s.medianMs, 3)}; scorer added over dispatch ${fixed(
          of((x) => x.scorer.medianMs - x["raw dispatch"].medianMs),
          3,
        )}, over request ${fixed(
          of((x) => x.scorer.medianMs - x["raw request"].medianMs),
          3,
        )}`,
        `  client CPU µs/req  ${perSide((s) => s.cpuUs)}; scorer added over dispatch ${fixed(of((x) => x.scorer.cpuUs - x["raw dispatch"].cpuUs))} (paired median)`,
        `  server CPU µs/req  ${perSide((s) => s.serverCpuUs)}`,
      ].join("\n"),
    );
  }
  await requestAgent.close();
  await dispatchAgent.close();
}

/** The scorer's own CPU per request: an in-memory opener, against JSON.stringify + JSON.parse of the same traffic. */
async function clientCost(): Promise<void> {
  const opener = async () => ({ status: 200, headers: {}, body: CONSTANT_REPLY });
  const scorer = new DecisionScorer("http://127.0.0.1:1", "lexical", undefined, { opener });
  const n = 50_000;
  /** CPU (user + system, so the collector's threads too) per call, µs. */
  const time = async (f: () => Promise<unknown>) => {
    const cpu = process.cpuUsage();
    for (let i = 0; i < n; i++) await f();
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / n;
  };
  const base = async () => {
    JSON.stringify({ model: "lexical", state: nextState(), questions });
    JSON.parse((await opener()).body);
  };
  const rawUs: number[] = [];
  const scorerUs: number[] = [];
  for (let r = 0; r < 6; r++) {
    rawUs.push(await time(base));
    scorerUs.push(await time(() => scorer.score(nextState(), items)));
  }
  rawUs.shift();
  scorerUs.shift();
  console.log(
    `no network (in-memory opener), CPU per request: JSON only ${fixed(median(rawUs), 1)} µs, scorer ${fixed(median(scorerUs), 1)} µs, added ${fixed(median(scorerUs) - median(rawUs), 1)} µs`,
  );
}

const parts = (process.env.BENCH_ONLY ?? "nonet,reference,constant").split(",");
console.log(
  `scorer.score, 3 items per request; ${ROUNDS} rounds of ${MS} ms per side, servers in their own processes; load average ${load()}`,
);
if (parts.includes("nonet")) await clientCost();
for (const [part, label, start] of [
  ["reference", "reference server", referenceServer],
  ["constant", "constant-reply server", constantServer],
] as const) {
  if (!parts.includes(part)) continue;
  const server = await start();
  await compare(label, server);
  server.child.kill();
}
console.log(`load average at the end ${load()}`);
process.exit(0);
