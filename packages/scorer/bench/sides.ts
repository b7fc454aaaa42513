/** The two sides the benchmark compares: a raw undici POST and scorer.score, sending the same bodies. */
import type { Dispatcher } from "undici";
import { Agent, request } from "undici";
import type { Item } from "../src/index.js";
import { DecisionScorer } from "./scorer.js";

/** The benchmark's 3 items: one yes/no, one choice, one score question. */
export const items: Item[] = [
  { name: "spam", kind: "yesno", question: "Is this message spam?" },
  { name: "team", kind: "choice", question: "Which team?", options: ["billing", "shipping", "support"] },
  { name: "tone", kind: "score", question: "How angry is it?", levels: ["calm", "annoyed", "furious"] },
];

const builder = new DecisionScorer("http://127.0.0.1:1", "lexical");
/** The questions the scorer sends for `items`, keyed as it keys them (`q{k}{suffix}`). */
export const questions: Record<string, unknown> = {};
items.forEach((item, k) => {
  for (const [suffix, q] of Object.entries(builder.questions(item))) questions[`q${k}${suffix}`] = q;
});

let salt = 0;
/** A new state each call, so neither side is served from a cache (the scorer's cache still stores it). */
export const nextState = () =>
  `Order ${salt++}: I was charged twice and my parcel never arrived. Please refund me.`;

/**
 * The raw sides' pool: the same kind of undici Agent with the same options as the scorer's default opener
 * (src/opener.ts, timeout 30 s): keep-alive, up to 256 connections per origin, no pipelining (undici's default 1).
 * Each side has its own Agent of this kind (the scorer's is its module's shared one).
 */
export function rawAgent(): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: 256,
    connect: { timeout: 30_000 },
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
}

const headers = { "content-type": "application/json", accept: "application/json" };

/**
 * Raw undici the usual way: `request()` POST of the scorer's body (the same headers), the reply read with
 * `body.text()` (a stream per reply) and parsed with JSON.parse.
 */
export function rawRequestSide(url: string, agent: Agent): () => Promise<void> {
  const endpoint = `${url}/v1/decision`;
  return async () => {
    const res = await request(endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "lexical", state: nextState(), questions }),
      dispatcher: agent,
    });
    const reply = JSON.parse(await res.body.text());
    if (res.statusCode !== 200 || typeof reply.answers !== "object")
      throw new Error(`raw: HTTP ${res.statusCode}`);
  };
}

/**
 * Raw undici the way the scorer's opener uses it: `dispatch()` on the pool with a handler that collects the
 * chunks and decodes them as `body.text()` does, then JSON.parse. The like-for-like baseline.
 */
export function rawDispatchSide(url: string, agent: Agent): () => Promise<void> {
  const { origin } = new URL(url);
  return async () => {
    const body = JSON.stringify({ model: "lexical", state: nextState(), questions });
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      agent.dispatch(
        { origin, path: "/v1/decision", method: "POST", headers, body },
        new Collect(resolve, reject),
      );
    });
    const reply = JSON.parse(res.text);
    if (res.status !== 200 || typeof reply.answers !== "object") throw new Error(`raw: HTTP ${res.status}`);
  };
}

const decoder = new TextDecoder();

/** The smallest handler that reads a reply: status, chunks, UTF-8 text. */
class Collect implements Dispatcher.DispatchHandler {
  status = 0;
  chunks: Buffer[] = [];
  constructor(
    readonly resolve: (r: { status: number; text: string }) => void,
    readonly reject: (e: Error) => void,
  ) {}
  onRequestStart(): void {}
  onResponseStart(_c: unknown, statusCode: number): void {
    this.status = statusCode;
  }
  onResponseData(_c: unknown, chunk: Buffer): void {
    this.chunks.push(chunk);
  }
  onResponseEnd(): void {
    let bytes = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    this.resolve({ status: this.status, text: decoder.decode(bytes) });
  }
  onResponseError(_c: unknown, error: Error): void {
    this.reject(error);
  }
}

/** One scorer request: scorer.score of a new state with the 3 items (default options: cache on). */
export function scorerSide(url: string): () => Promise<void> {
  const scorer = new DecisionScorer(url, "lexical");
  return async () => {
    const out = await scorer.score(nextState(), items);
    if (out[0].escalate) throw new Error(out[0].escalate);
  };
}
