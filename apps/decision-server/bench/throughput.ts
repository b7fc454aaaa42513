/**
 * Requests per second of POST /v1/decision at concurrency 64, for 1-item and 8-item requests with the
 * lexical and the Bayes models, next to a bare Fastify server answering a constant reply (the framework's
 * ceiling) measured in the same run. The load comes from a worker thread (keep-alive HTTP/1.1), so the
 * server has this thread to itself. Scenarios alternate over several rounds and each ratio is the median of
 * the per-round ratios, so that load from other processes on the machine cancels out as far as it can.
 * Also printed: the server thread's busy time per request (event-loop utilisation / requests).
 *
 *   node --import tsx bench/throughput.ts [rounds, default 5] [seconds per run, default 1.5]
 */

import { Worker } from "node:worker_threads";
import Fastify from "fastify";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { startDecisionServer } from "../src/index.js";

recordResults(import.meta.url, "requests per second");

const CONCURRENCY = 64;
const ROUNDS = Number(process.argv[2] ?? 5);
const SECONDS = Number(process.argv[3] ?? 1.5);
const NS =
  "The input does not state it: the facts this question needs are missing, and nothing given settles it.";

const CLIENT = `
const http = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const { url, body, concurrency, warmupMs, durationMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL(url + "/v1/decision");
const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
let ok = 0, failed = 0, counting = false, stopped = false;
function one() {
  if (stopped) return;
  const req = http.request({ hostname: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers }, (res) => {
    res.resume();
    res.on("end", () => {
      if (counting) { if (res.statusCode === 200) ok++; else failed++; }
      one();
    });
  });
  req.on("error", () => { if (counting) failed++; one(); });
  req.end(body);
}
for (let i = 0; i < concurrency; i++) one();
setTimeout(() => {
  counting = true;
  parentPort.postMessage("start");
  const started = performance.now();
  setTimeout(() => {
    counting = false;
    stopped = true;
    parentPort.postMessage({ ok, failed, ms: performance.now() - started });
    agent.destroy();
  }, durationMs);
}, warmupMs);
`;

interface Run {
  rps: number;
  busyUs: number;
}

function load(url: string, body: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, {
      eval: true,
      workerData: { url, body, concurrency: CONCURRENCY, warmupMs: 300, durationMs: SECONDS * 1000 },
    });
    let elu = performance.eventLoopUtilization();
    worker.on("message", (m: "start" | { ok: number; failed: number; ms: number }) => {
      if (m === "start") {
        elu = performance.eventLoopUtilization();
        return;
      }
      const used = performance.eventLoopUtilization(elu);
      if (m.failed > 0) reject(new Error(`${m.failed} requests failed`));
      const run = { rps: (m.ok / m.ms) * 1000, busyUs: (used.active * 1000) / m.ok };
      worker.terminate().then(() => resolve(run), reject);
    });
    worker.once("error", reject);
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const shortEmail = "Subject: cheap meds\n\nBuy now and save $50, click http://example.com to unsubscribe.";
const ticket = "I was charged twice for my order last week. Please refund the second charge.";

/** 8 questions of the bundled datasets' items (all matched by a checkpoint). */
function bayesQuestions(n: number): Record<string, unknown> {
  const props = ["link", "money", "reply", "quote", "unsubscribe"];
  const all: Record<string, unknown> = {
    q0: { type: "noul", instructions: "Is this email spam?" },
  };
  props.forEach((p, j) => {
    all[`q1__${j}`] = {
      type: "noul",
      instructions: `Which of these properties does the email have? Does the option '${p}' apply?`,
    };
  });
  all.q2 = {
    type: "choice",
    instructions: "What kind of weather did Seattle have on this day?",
    criteria: { sun: null, rain: null, drizzle: null, fog: null, snow: null },
  };
  all.q3 = {
    type: "choice",
    instructions: "Which penguin species is this bird?",
    criteria: { Adelie: null, Chinstrap: null, Gentoo: null },
  };
  return Object.fromEntries(Object.entries(all).slice(0, n));
}

/** n generic questions (no checkpoint: lexical everywhere). */
function lexicalQuestions(n: number): Record<string, unknown> {
  const all: Record<string, unknown> = {
    q0: {
      type: "choice",
      instructions: "Which team should handle this?",
      criteria: { billing: "Charges, refunds, invoices", shipping: "Delivery and parcels", "not stated": NS },
    },
  };
  for (let i = 1; i < n; i++) {
    all[`q${i}`] = {
      type: "noul",
      instructions: `Topic ${i}? Does the option 'refund ${i}' (money back) apply?`,
    };
  }
  return all;
}

function constantReply(questions: Record<string, unknown>): string {
  const answers = Object.fromEntries(Object.keys(questions).map((id) => [id, { type: "noul", noul: 0.5 }]));
  return JSON.stringify({
    model: "constant",
    answers,
    usage: { input_tokens: 10, output_tokens: 1, reasoning_tokens: 0 },
    latency_ms: 0.1,
  });
}

const ceilingApp = Fastify({ logger: false });
let constant = "";
ceilingApp.post("/v1/decision", (_req, reply) => {
  reply.type("application/json; charset=utf-8").send(constant);
});
await ceilingApp.listen({ port: 0, host: "127.0.0.1" });
const address = ceilingApp.server.address();
const ceilingUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
const server = await startDecisionServer({ port: 0, record: false });

interface Scenario {
  label: string;
  url: string;
  body: string;
  ceiling: string;
}
const scenarios: Scenario[] = [];
const constants = new Map<string, string>();
for (const n of [1, 8]) {
  const lexical = JSON.stringify({ model: "lexical", state: ticket, questions: lexicalQuestions(n) });
  const bayes = JSON.stringify({
    model: "workbench-latest",
    state: shortEmail,
    questions: bayesQuestions(n),
  });
  const ceiling = `${n}-item  ceiling (constant reply)`;
  constants.set(ceiling, constantReply(lexicalQuestions(n)));
  scenarios.push({ label: ceiling, url: ceilingUrl, body: lexical, ceiling });
  scenarios.push({ label: `${n}-item  lexical`, url: server.url, body: lexical, ceiling });
  scenarios.push({ label: `${n}-item  bayes-2 (workbench-latest)`, url: server.url, body: bayes, ceiling });
}

const runs = new Map<string, Run[]>(scenarios.map((s) => [s.label, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const s of scenarios) {
    constant = constants.get(s.ceiling) ?? "";
    runs.get(s.label)?.push(await load(s.url, s.body));
  }
}
await server.close();
await ceilingApp.close();

console.log(
  `concurrency ${CONCURRENCY}, short states, ${ROUNDS} rounds of ${SECONDS} s per scenario (medians)`,
);
console.log("scenario                            req/s   busy us/req   ratio to ceiling");
for (const s of scenarios) {
  const mine = runs.get(s.label) ?? [];
  const base = runs.get(s.ceiling) ?? [];
  const ratio = median(mine.map((r, i) => r.rps / base[i].rps));
  console.log(
    `${s.label.padEnd(34)} ${median(mine.map((r) => r.rps))
      .toFixed(0)
      .padStart(7)}   ${median(mine.map((r) => r.busyUs))
      .toFixed(1)
      .padStart(11)}   ${ratio.toFixed(2).padStart(16)}`,
  );
}
