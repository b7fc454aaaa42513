/**
 * Throughput of scorer.score (3 items per request) against a raw undici POST of the same bodies to the same
 * local server, in one run, at concurrency 1 and 64. Servers run in their own processes: the reference
 * decision server (lexical model) and a constant-reply node:http server, where the client's cost shows most.
 * Rounds alternate raw and scorer and the medians are printed, since shared machines are noisy.
 * Targets: scorer >= 0.9 of raw undici's requests/s at concurrency 64; added latency < 0.2 ms at concurrency 1.
 *
 *   node --import tsx bench/throughput.ts        (BENCH_MS per measurement, BENCH_ROUNDS rounds)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import type { Item } from "../src/index.js";
import { DecisionScorer } from "../src/index.js";

const MS = Number(process.env.BENCH_MS ?? 1500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const items: Item[] = [
  { name: "spam", kind: "yesno", question: "Is this message spam?" },
  { name: "team", kind: "choice", question: "Which team?", options: ["billing", "shipping", "support"] },
  { name: "tone", kind: "score", question: "How angry is it?", levels: ["calm", "annoyed", "furious"] },
];

const builder = new DecisionScorer("http://127.0.0.1:1", "lexical");
const questions: Record<string, unknown> = {};
items.forEach((item, k) => {
  for (const [suffix, q] of Object.entries(builder.questions(item))) questions[`q${k}${suffix}`] = q;
});
let salt = 0;
/** A new state each call, so neither side is served from a cache. */
const nextState = () => `Order ${salt++}: I was charged twice and my parcel never arrived. Please refund me.`;

interface Sample {
  rps: number;
  medianMs: number;
  /** Client process CPU (user + system) per request, in µs: robust to other processes on the machine. */
  cpuUs: number;
}

async function measure(concurrency: number, once: () => Promise<void>): Promise<Sample> {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const end = performance.now() + MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await once();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    rps: latencies.length / ((performance.now() - started) / 1000),
    medianMs: median(latencies),
    cpuUs: (used.user + used.system) / latencies.length,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function compare(label: string, url: string): Promise<void> {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 });
  const raw = async () => {
    const res = await request(`${url}/v1/decision`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "lexical", state: nextState(), questions }),
      dispatcher: agent,
    });
    JSON.parse(await res.body.text());
  };
  const scorer = new DecisionScorer(url, "lexical");
  const scored = async () => {
    const out = await scorer.score(nextState(), items);
    if (out[0].escalate) throw new Error(out[0].escalate);
  };
  for (const c of [1, 64]) {
    await measure(c, raw);
    await measure(c, scored);
    const ratios: number[] = [];
    const added: number[] = [];
    const raws: number[] = [];
    const scoreds: number[] = [];
    const cpuRaw: number[] = [];
    const cpuScorer: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      let w: Sample;
      let s: Sample;
      if (r % 2 === 0) {
        w = await measure(c, raw);
        s = await measure(c, scored);
      } else {
        s = await measure(c, scored);
        w = await measure(c, raw);
      }
      ratios.push(s.rps / w.rps);
      added.push(s.medianMs - w.medianMs);
      raws.push(w.rps);
      scoreds.push(s.rps);
      cpuRaw.push(w.cpuUs);
      cpuScorer.push(s.cpuUs);
    }
    console.log(
      `${label.padEnd(22)} c=${String(c).padEnd(3)} raw ${median(raws).toFixed(0).padStart(6)} req/s  scorer ${median(
        scoreds,
      )
        .toFixed(0)
        .padStart(
          6,
        )} req/s  ratio ${median(ratios).toFixed(3)}  added median latency ${median(added).toFixed(3)} ms  client CPU/request raw ${median(cpuRaw).toFixed(0)} µs, scorer ${median(cpuScorer).toFixed(0)} µs (ratio ${(median(cpuRaw) / median(cpuScorer)).toFixed(3)})`,
    );
  }
  await agent.close();
}

/** The scorer's own CPU per request: an in-memory opener, against JSON.stringify + JSON.parse of the same traffic. */
async function clientCost(): Promise<void> {
  const reply = JSON.stringify({
    model: "lexical",
    answers: {
      q0: { type: "noul", noul: 0.8 },
      q1: { type: "choice", probabilities: { billing: 0.5, shipping: 0.3, support: 0.2 } },
      q2: { type: "choice", probabilities: { calm: 0.6, annoyed: 0.3, furious: 0.1 } },
    },
    usage: { input_tokens: 40, output_tokens: 3 },
  });
  const opener = async () => ({ status: 200, headers: {}, body: reply });
  const scorer = new DecisionScorer("http://127.0.0.1:1", "lexical", undefined, { opener });
  const n = 50_000;
  const time = async (f: () => Promise<unknown>) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) await f();
    return ((performance.now() - t) * 1000) / n;
  };
  const base = async () => {
    JSON.stringify({ model: "lexical", state: nextState(), questions });
    JSON.parse((await opener()).body);
  };
  await time(base);
  await time(() => scorer.score(nextState(), items));
  const rawUs = await time(base);
  const scorerUs = await time(() => scorer.score(nextState(), items));
  console.log(
    `client CPU per request (no network): JSON only ${rawUs.toFixed(1)} µs, scorer ${scorerUs.toFixed(1)} µs, added ${(scorerUs - rawUs).toFixed(1)} µs`,
  );
}

/** Starts a server in its own process and reads the address from its first line. */
async function spawnServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, child };
}

const CONSTANT = `
const reply = ${JSON.stringify(
  JSON.stringify({
    model: "lexical",
    answers: {
      q0: { type: "noul", noul: 0.8 },
      q1: {
        type: "choice",
        choice: "billing",
        confidence: 0.5,
        probabilities: { billing: 0.5, shipping: 0.3, support: 0.2 },
      },
      q2: {
        type: "choice",
        choice: "calm",
        confidence: 0.6,
        probabilities: { calm: 0.6, annoyed: 0.3, furious: 0.1 },
      },
    },
    usage: { input_tokens: 40, output_tokens: 3 },
    latency_ms: 0.1,
  }),
)};
const server = require("node:http").createServer((req, res) => {
  req.resume();
  req.on("end", () => { res.setHeader("content-type", "application/json"); res.end(reply); });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port));
`;

const cli = fileURLToPath(new URL("../../../apps/decision-server/dist/cli.js", import.meta.url));
const reference = await spawnServer([cli, "--port", "0"]);
const constant = await spawnServer(["-e", CONSTANT]);
console.log(
  `scorer.score with 3 items per request; ${ROUNDS} alternating rounds of ${MS} ms, medians; servers in their own processes`,
);
await clientCost();
await compare("reference server", reference.url);
await compare("constant-reply server", constant.url);
reference.child.kill();
constant.child.kill();
process.exit(0);
