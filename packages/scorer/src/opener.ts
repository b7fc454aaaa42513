import type { LookupFunction } from "node:net";
import { LRUCache } from "lru-cache";
import type { Dispatcher } from "undici";
import { Agent } from "undici";
import { AbortError, abortErrorOf } from "./abort.js";
import type { NetworkCode, Opener, OpenerRequest, OpenerResponse } from "./types.js";

/** A failed request without an HTTP status; `code` says which failure it was. */
export class NetworkError extends Error {
  override name = "NetworkError";
  constructor(
    readonly code: NetworkCode,
    message: string,
    /** The transport's own error, when there was one. */
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** How an opener's sockets connect: `lookup` replaces the DNS lookup of a host name (not of an IP address). */
export interface SocketOptions {
  lookup?: LookupFunction;
}

/**
 * Keep-alive pools, one per timeout (it bounds the connect too), over sockets made with `socket`'s options.
 * The default opener's pools are shared by every scorer of the process.
 */
function agentPool(socket: SocketOptions): (ms: number) => Agent {
  const agents = new Map<number, Agent>();
  return (ms) => {
    let agent = agents.get(ms);
    if (!agent) {
      agent = new Agent({
        keepAliveTimeout: 10_000,
        keepAliveMaxTimeout: 60_000,
        connections: 256,
        connect: { ...socket, timeout: ms },
        headersTimeout: ms,
        bodyTimeout: ms,
      });
      agents.set(ms, agent);
    }
    return agent;
  };
}

/** A URL split as undici dispatches it. */
interface Target {
  origin: string;
  path: string;
}

/** Parsed URLs, the 256 last used. */
const targets = new LRUCache<string, Target>({ max: 256 });

/** The origin and path of a URL (a scorer sends every request to one URL: parsed once, not per request). */
function targetOf(url: string): Target {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = {
      origin: parsed.origin,
      path: parsed.search ? parsed.pathname + parsed.search : parsed.pathname,
    };
    targets.set(url, target);
  }
  return target;
}

/**
 * The default opener: undici over a shared keep-alive pool. `timeout` seconds bound the connect, the wait for
 * the reply's headers and every wait between body chunks (the socket-timeout semantics of the Python client).
 * It dispatches with a handler that collects the body and decodes it as `body.text()` does (one UTF-8 BOM
 * dropped, invalid bytes replaced): undici's `request()` wraps every reply in a stream, which costs more CPU
 * than the rest of a request.
 */
export const undiciOpener: Opener = openerOver(agentPool({}));

/**
 * An opener like `undiciOpener` (redirects are never followed either) whose sockets connect with `socket`'s
 * options, over keep-alive pools of its own: a `lookup` that refuses some addresses is checked on every
 * connection, so a host name cannot be re-pointed between a check and the connect.
 */
export function undiciOpenerWith(socket: SocketOptions): Opener {
  return openerOver(agentPool({ ...socket }));
}

function openerOver(agentFor: (ms: number) => Agent): Opener {
  return (req: OpenerRequest): Promise<OpenerResponse> => {
    const ms = Math.max(1, Math.round(req.timeout * 1000));
    const signal = req.signal;
    if (signal?.aborted) return Promise.reject(abortErrorOf(signal));
    return new Promise<OpenerResponse>((resolve, reject) => {
      const collector = new Collector(resolve, reject, req.timeout, signal);
      let target: Target;
      try {
        target = targetOf(req.url);
      } catch (error) {
        collector.onResponseError(null, error as Error);
        return;
      }
      agentFor(ms).dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: req.method,
          headers: req.headers,
          body: req.body,
        },
        collector,
      );
    });
  };
}

/** Collects one reply; settles the opener's promise once, at its end or at its first error. */
class Collector implements Dispatcher.DispatchHandler {
  #status = 0;
  #headers: OpenerResponse["headers"] = {};
  #chunks: Buffer[] = [];
  #headersReceived = false;
  #onAbort: (() => void) | undefined;

  constructor(
    private readonly resolve: (response: OpenerResponse) => void,
    private readonly reject: (error: NetworkError | AbortError) => void,
    private readonly timeout: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** With a signal: aborting it stops the request (its socket is not reused) and rejects with an AbortError. */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    const signal = this.signal;
    if (!signal) return;
    if (signal.aborted) {
      controller.abort(abortErrorOf(signal));
      return;
    }
    this.#onAbort = () => controller.abort(abortErrorOf(signal));
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  #settled(): void {
    if (this.#onAbort) this.signal?.removeEventListener("abort", this.#onAbort);
    this.#onAbort = undefined;
  }

  onResponseStart(_controller: unknown, statusCode: number, headers: OpenerResponse["headers"]): void {
    if (statusCode < 200) return; // an informational reply: the real one follows
    this.#status = statusCode;
    this.#headers = headers;
    this.#headersReceived = true;
  }

  onResponseData(_controller: unknown, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.#settled();
    this.resolve({ status: this.#status, headers: this.#headers, body: decodeText(this.#chunks) });
  }

  onResponseError(_controller: unknown, error: Error): void {
    this.#settled();
    if (error instanceof AbortError) this.reject(error);
    else this.reject(classify(error, this.#headersReceived, this.timeout));
  }
}

const decoder = new TextDecoder();

/** UTF-8 text of the chunks, as undici's `body.text()` reads it: a leading BOM dropped, bad bytes replaced. */
function decodeText(chunks: Buffer[]): string {
  if (chunks.length === 0) return "";
  let bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  return decoder.decode(bytes);
}

const TIMEOUTS = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);
const RESETS = new Set(["ECONNRESET", "UND_ERR_SOCKET", "EPIPE"]);

function classify(error: unknown, headersReceived: boolean, timeout: number): NetworkError {
  const code = (error as { code?: string }).code ?? "";
  const message = error instanceof Error ? error.message : String(error);
  const cause = { cause: error };
  if (TIMEOUTS.has(code)) return new NetworkError("timeout", `timed out after ${timeout} s`, cause);
  if (code === "ECONNREFUSED") return new NetworkError("refused", "connection refused", cause);
  if (headersReceived || code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") {
    return new NetworkError(
      "incomplete read",
      `incomplete read: the reply was cut short (${message})`,
      cause,
    );
  }
  if (RESETS.has(code)) return new NetworkError("reset", `connection reset (${message})`, cause);
  return new NetworkError("network", `network error: ${code ? `${code} ` : ""}${message}`, cause);
}
