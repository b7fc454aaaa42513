import { afterAll } from "vitest";
import { type DecisionServerHandle, type DecisionServerOptions, startDecisionServer } from "../src/index.js";

/** Starts a server on 127.0.0.1, a free port; closed after the test file. */
export async function server(options: DecisionServerOptions = {}): Promise<DecisionServerHandle> {
  const handle = await startDecisionServer({ port: 0, ...options });
  afterAll(() => handle.close());
  return handle;
}

/** A reply: status, headers, raw text and the parsed JSON (when it parses). */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

async function reply(r: Response): Promise<Reply> {
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text, json };
}

/** POSTs a body (an object is sent as JSON, a string as is) to /v1/decision. */
export async function post(
  handle: DecisionServerHandle,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const r = await fetch(`${handle.url}/v1/decision`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return reply(r);
}

/** GETs a path. */
export async function get(handle: DecisionServerHandle, path: string, headers: Record<string, string> = {}) {
  return reply(await fetch(`${handle.url}${path}`, { headers }));
}

/** The NS description the scorer sends for `not stated`. */
export const NS =
  "The input does not state it: the facts this question needs are missing, and nothing given settles it.";

/** A small valid request over every question type. */
export function sampleRequest(model = "lexical"): Record<string, unknown> {
  return {
    model,
    state: "I was charged twice for my order last week. Please refund the second charge.",
    questions: {
      q0: {
        type: "choice",
        instructions: "Which team should handle this?",
        criteria: {
          billing: "Charges, refunds, invoices",
          shipping: "Delivery and parcels",
          "not stated": NS,
        },
      },
      q1: { type: "noul", instructions: "Is this urgent?" },
      q2__0: {
        type: "noul",
        instructions: "Which topics? Does the option 'billing' (Charges, refunds) apply?",
      },
      q2__1: { type: "noul", instructions: "Which topics? Does the option 'shipping' apply?" },
      q2__ns: { type: "noul", instructions: `Which topics? Is the answer not stated in the input? ${NS}` },
      q3: {
        type: "score",
        instructions: "How upset is the customer?",
        criteria: ["calm", "annoyed", "furious"],
      },
    },
  };
}

/** The reply text without its latency (the only field allowed to differ between identical requests). */
export function withoutLatency(text: string): string {
  return text.replace(/"latency_ms":[0-9.e+-]+/, '"latency_ms":0');
}
