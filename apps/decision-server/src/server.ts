/** The HTTP server: POST /v1/decision, GET /v1/models, GET /health, the API key and fault injection. */

import { timingSafeEqual } from "node:crypto";
import { setMaxListeners } from "node:events";
import { type IncomingHttpHeaders, STATUS_CODES } from "node:http";
import { performance } from "node:perf_hooks";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { loadCheckpoints } from "./bayes/checkpoints.js";
import { DEFAULT_LATEST } from "./bayes/versions.js";
import { isBodyFault, serializeReply } from "./faults/mutate.js";
import { faultPicker } from "./faults/picker.js";
import { type Fault, type FaultPlan, validateFaultPlan } from "./faults/plan.js";
import { HttpError } from "./http/errors.js";
import { checkRateLimit, type Limiter, limiter, type RateLimit } from "./http/rateLimit.js";
import { buildRegistry, type ModelRegistry } from "./models/registry.js";
import { decide } from "./reply/decide.js";
import { parseBody, validateRequest } from "./request/validate.js";

/** Options of `startDecisionServer`. */
export interface DecisionServerOptions {
  /** Default 8009; 0 picks a free port. */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /** When set, POST /v1/decision and GET /v1/models need "Authorization: Bearer <key>", else 401. */
  apiKey?: string;
  /** Fault injection; off when absent. */
  faults?: FaultPlan;
  /** Which checkpoint version "workbench-latest" resolves to (default "bayes-2"). */
  alias?: string;
  /** Largest request body in bytes, default 1 MiB; over it -> 413. */
  bodyLimit?: number;
  /** Serve the trained checkpoints (default true); false serves `lexical` only and starts at once. */
  checkpoints?: boolean;
  /** Keep every POST /v1/decision in `requests` (default true; the CLI turns it off to bound memory). */
  record?: boolean;
  /** Folder of the checkpoint cache (default `$DECISION_SERVER_CACHE_DIR` or `<repo>/.data/decision-server`). */
  cacheDir?: string;
  /**
   * Limit POST /v1/decision to a rate (a token bucket: `{requests, per, burst?}` or "50/s", "1200/m"); beyond
   * it the reply is 429 with Retry-After (whole seconds) and retry-after-ms. Off when absent.
   */
  rateLimit?: RateLimit | string;
}

/** One POST /v1/decision request as received. */
export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  /** The raw body text. */
  body: string;
  /** Arrival time, milliseconds since the epoch. */
  at: number;
  /**
   * When the whole response had been handed to the operating system (the response's 'finish'): high-resolution
   * milliseconds since the epoch, `performance.timeOrigin + performance.now()` of this process. Absent while the
   * request is in flight, and for good when the response was never sent whole (reset, truncated, client gone).
   */
  answeredAt?: number;
  /** True when the rate limit refused it (answered 429; it never reached a model or the fault plan). */
  limited?: boolean;
}

/** A running server. */
export interface DecisionServerHandle {
  /** "http://127.0.0.1:PORT": the base_url; the endpoint is url + "/v1/decision". */
  url: string;
  /** Every POST /v1/decision received, in order (empty when `record` is false). */
  requests: ReceivedRequest[];
  /** POST /v1/decision requests the rate limit answered with 429 so far (always set by startDecisionServer). */
  readonly rateLimited?: number;
  close(): Promise<void>;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = "application/json; charset=utf-8";

function reason(status: number): string {
  return STATUS_CODES[status] ?? (status === 529 ? "Site Overloaded" : "Error");
}

function authorized(header: string | undefined, key: string): boolean {
  const expected = Buffer.from(`Bearer ${key}`);
  const got = Buffer.from(header ?? "");
  return got.length === expected.length && timingSafeEqual(got, expected);
}

function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .type(JSON_TYPE)
    .send(typeof body === "string" ? body : JSON.stringify(body));
}

/** Starts the reference decision server; resolves once it listens (checkpoints loaded). */
export async function startDecisionServer(opts: DecisionServerOptions = {}): Promise<DecisionServerHandle> {
  const bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const plan = opts.faults ? validateFaultPlan(opts.faults) : undefined;
  const limit: Limiter | undefined =
    opts.rateLimit === undefined ? undefined : limiter(checkRateLimit(opts.rateLimit));
  let rateLimited = 0;
  const pick = plan ? faultPicker(plan) : () => undefined;
  const checkpoints = opts.checkpoints === false ? null : await loadCheckpoints(opts.cacheDir);
  const registry: ModelRegistry = buildRegistry(checkpoints, opts.alias ?? DEFAULT_LATEST);
  const apiKey = opts.apiKey;
  const requests: ReceivedRequest[] = [];
  const record = opts.record !== false;
  let received = 0;
  const aborter = new AbortController();
  // every delayed request listens to it until answered: as many as the clients send at once
  setMaxListeners(0, aborter.signal);

  const app = Fastify({ logger: false, bodyLimit, return503OnClosing: false });
  app.removeAllContentTypeParsers();
  const asText = (_req: unknown, body: string | Buffer, done: (err: null, body: string | Buffer) => void) =>
    done(null, body);
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit }, asText);
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit }, asText);

  app.setNotFoundHandler((_req, reply) => sendJson(reply, 404, { detail: "not found" }));
  app.setErrorHandler((error: { statusCode?: number; message: string }, _req, reply) => {
    if (error instanceof HttpError) return sendJson(reply, error.status, { detail: error.detail });
    const status = error.statusCode ?? 500;
    if (status === 413) {
      return sendJson(reply, 413, {
        detail: `request body is larger than the limit of ${bodyLimit} bytes: send fewer or shorter states and questions`,
      });
    }
    if (status >= 500) {
      if (!aborter.signal.aborted)
        process.stderr.write(`decision-server: ${(error as Error).stack ?? error.message}\n`);
      return sendJson(reply, status, { detail: "internal server error" });
    }
    return sendJson(reply, status, { detail: error.message });
  });

  function checkKey(req: FastifyRequest): void {
    if (apiKey === undefined) return;
    const header = req.headers.authorization;
    if (!authorized(header, apiKey)) {
      throw new HttpError(
        401,
        header === undefined
          ? "missing API key: send the header 'Authorization: Bearer <key>'"
          : "invalid API key: the 'Authorization: Bearer <key>' header does not carry this server's key",
      );
    }
  }

  app.get("/health", (_req, reply) => sendJson(reply, 200, { status: "ok", models: registry.names() }));

  app.get("/v1/models", (req, reply) => {
    checkKey(req);
    return sendJson(reply, 200, registry.listing());
  });

  app.post("/v1/decision", async (req, reply) => {
    const started = performance.now();
    const body = typeof req.body === "string" ? req.body : "";
    let entry: ReceivedRequest | undefined;
    if (record) {
      const received: ReceivedRequest = { headers: req.headers, body, at: Date.now() };
      entry = received;
      requests.push(received);
      reply.raw.once("finish", () => {
        received.answeredAt = performance.timeOrigin + performance.now();
      });
    }
    if (limit) {
      // A gateway in front of the service: a refused request reaches neither the fault plan nor a model.
      const refused = limit.admit();
      if (refused) {
        rateLimited++;
        if (entry) entry.limited = true;
        reply.headers(refused.headers);
        return sendJson(reply, 429, { detail: refused.detail });
      }
      reply.headers(limit.headers());
    }
    received++;
    const fault = pick(received);
    if (fault) {
      const handled = await transportFault(fault, req, reply, aborter.signal);
      if (handled) return reply;
    }
    checkKey(req);
    const request = validateRequest(parseBody(body));
    const model = registry.resolve(request.model);
    if (!model) {
      throw new HttpError(
        404,
        `model '${request.model}' not found; available models: ${registry
          .names()
          .map((n) => `'${n}'`)
          .join(", ")}`,
      );
    }
    const decided = decide(model, request);
    const out: Record<string, unknown> = {
      model: decided.model,
      answers: decided.answers,
      usage: decided.usage,
    };
    out.latency_ms = Math.round((performance.now() - started) * 10) / 10;
    if (decided.reasoning) out.reasoning = decided.reasoning;
    const text = serializeReply(
      out,
      request.questions[0].id,
      fault && isBodyFault(fault) ? fault : undefined,
    );
    if (fault?.kind === "truncate") return truncated(reply, text);
    return sendJson(reply, 200, text);
  });

  await app.listen({ port: opts.port ?? 8009, host: opts.host ?? "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  const host = opts.host ?? "127.0.0.1";
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    requests,
    get rateLimited() {
      return rateLimited;
    },
    close: async () => {
      aborter.abort();
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
    },
  };
}

/** Status, gateway, reset and delay faults; true when the reply is already decided. */
async function transportFault(
  fault: Fault,
  req: FastifyRequest,
  reply: FastifyReply,
  signal: AbortSignal,
): Promise<boolean> {
  switch (fault.kind) {
    case "status":
      if (fault.headers) reply.headers(fault.headers);
      sendJson(reply, fault.status, fault.body !== undefined ? fault.body : { detail: reason(fault.status) });
      return true;
    case "gateway": {
      const metadata: Record<string, string> = { raw: fault.raw };
      if (fault.provider !== undefined) metadata.provider_name = fault.provider;
      sendJson(reply, fault.status, {
        error: { message: "Provider returned error", code: fault.status, metadata },
      });
      return true;
    }
    case "reset": {
      reply.hijack();
      const socket = req.raw.socket;
      if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
      else socket.destroy();
      return true;
    }
    case "delay":
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          clearTimeout(timer);
          reject(new Error("server closing"));
        };
        const timer = setTimeout(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        }, fault.ms);
        signal.addEventListener("abort", onAbort, { once: true });
      });
      return false;
    default:
      return false;
  }
}

/** Status 200 with the full content-length, half the body, then the connection closes. */
function truncated(reply: FastifyReply, text: string): FastifyReply {
  const bytes = Buffer.from(text);
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { "content-type": JSON_TYPE, "content-length": String(bytes.length) });
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
  return reply;
}
