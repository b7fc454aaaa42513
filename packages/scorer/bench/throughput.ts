/**
 * Throughput of scorer.score (3 items per request) against a raw undici POST of the same bodies to the same
 * local server, in one run, at concurrency 1 and 64. Servers run in their own processes: the reference
 * decision server (lexical model) and a constant-reply node:http server, where the client's cost shows most.
 *
 * Noisy machines: many short rounds, raw and scorer alternating (ABBA order), each round a pair. The headline
 * is the median of the per-round paired ratios (scorer / raw req/s), with its interquartile range and the
 * ratio of the per-side medians. Client CPU per request (user + system of this process, all threads, so its
 * GC too) is measured per side: it is the figure other processes on the machine disturb least.
 * Targets: scorer >= 0.9 of raw undici's requests/s at concurrency 64; added latency < 0.2 ms at concurrency 1.
 *
 *   node --import tsx bench/throughput.ts     (env BENCH_MS per run, default 300; BENCH_ROUNDS pairs, 20;
 *                                              BENCH_ONLY: some of nonet,reference,constant)
 */
import { loadavg } from "node:os";
import { measure, median, quantile, type Sample } from "./measure.js";
import { DecisionScorer } from "./scorer.js";
import { CONSTANT_REPLY, constantServer, referenceServer, type Server } from "./servers.js";
import { items, nextState, questions, rawAgent, rawSide, scorerSide } from "./sides.js";

const MS = Number(process.env.BENCH_MS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const fixed = (x: number, digits = 0) => x.toFixed(digits);

async function compare(label: string, server: Server): Promise<void> {
  const agent = rawAgent();
  const raw = rawSide(server.url, agent);
  const scored = scorerSide(server.url);
  const pid = server.child.pid;
  for (const c of [1, 64]) {
    await measure(c, MS, raw, pid);
    await measure(c, MS, scored, pid);
    const pairs: { w: Sample; s: Sample }[] = [];
    const before = load();
    for (let r = 0; r < ROUNDS; r++) {
      const rawFirst = r % 4 === 0 || r % 4 === 3;
      const first = await measure(c, MS, rawFirst ? raw : scored, pid);
      const second = await measure(c, MS, rawFirst ? scored : raw, pid);
      pairs.push(rawFirst ? { w: first, s: second } : { w: second, s: first });
    }
    const ratios = pairs.map((p) => p.s.rps / p.w.rps);
    const of = (f: (p: { w: Sample; s: Sample }) => number) => median(pairs.map(f));
    const rawRps = of((p) => p.w.rps);
    const scorerRps = of((p) => p.s.rps);
    const cpuRaw = of((p) => p.w.cpuUs);
    const cpuScorer = of((p) => p.s.cpuUs);
    console.log(
      [
        `${label} c=${c}  (load average ${before} before, ${load()} after)`,
        `  req/s        raw ${fixed(rawRps)}  scorer ${fixed(scorerRps)}  (medians over ${ROUNDS} rounds)`,
        `  ratio        median of paired ratios ${fixed(median(ratios), 3)}  (IQR ${fixed(quantile(ratios, 0.25), 3)}-${fixed(quantile(ratios, 0.75), 3)})  ratio of medians ${fixed(scorerRps / rawRps, 3)}`,
        `  latency      median raw ${fixed(
          of((p) => p.w.medianMs),
          3,
        )} ms  scorer ${fixed(
          of((p) => p.s.medianMs),
          3,
        )} ms  added (median of paired) ${fixed(
          of((p) => p.s.medianMs - p.w.medianMs),
          3,
        )} ms`,
        `  client CPU   per request raw ${fixed(cpuRaw)} µs  scorer ${fixed(cpuScorer)} µs  added (median of paired) ${fixed(of((p) => p.s.cpuUs - p.w.cpuUs))} µs`,
        `  server CPU   per request raw ${fixed(of((p) => p.w.serverCpuUs))} µs  scorer ${fixed(of((p) => p.s.serverCpuUs))} µs`,
      ].join("\n"),
    );
  }
  await agent.close();
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
    `no network (in-memory opener), CPU per request: JSON only ${fixed(median(rawUs), 1)} µs, scorer ${fixed(median(scorerUs), 1)} µs per request, added ${fixed(median(scorerUs) - median(rawUs), 1)} µs`,
  );
}

const parts = (process.env.BENCH_ONLY ?? "nonet,reference,constant").split(",");
console.log(
  `scorer.score, 3 items per request; ${ROUNDS} rounds of ${MS} ms per side (ABBA), servers in their own processes; load average ${load()}`,
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
