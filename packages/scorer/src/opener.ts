import { Agent, request } from "undici";
import type { NetworkCode, Opener, OpenerRequest, OpenerResponse } from "./types.js";

/** A failed request without an HTTP status; `code` says which failure it was. */
export class NetworkError extends Error {
  override name = "NetworkError";
  constructor(
    readonly code: NetworkCode,
    message: string,
  ) {
    super(message);
  }
}

let shared: Agent | undefined;

/** One keep-alive pool for every scorer of the process. */
function agent(): Agent {
  shared ??= new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: 256,
    pipelining: 1,
  });
  return shared;
}

/** The default opener: undici over a shared keep-alive pool, the whole request bounded by `timeout` seconds. */
export const undiciOpener: Opener = async (req: OpenerRequest): Promise<OpenerResponse> => {
  const ms = Math.max(1, Math.round(req.timeout * 1000));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  let headersReceived = false;
  try {
    const res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      dispatcher: agent(),
      signal: controller.signal,
      headersTimeout: ms,
      bodyTimeout: ms,
    });
    headersReceived = true;
    const body = await res.body.text();
    return { status: res.statusCode, headers: res.headers, body };
  } catch (error) {
    throw classify(error, headersReceived, controller.signal.aborted, req.timeout);
  } finally {
    clearTimeout(timer);
  }
};

function classify(error: unknown, headersReceived: boolean, aborted: boolean, timeout: number): NetworkError {
  const code = (error as { code?: string }).code ?? "";
  const message = error instanceof Error ? error.message : String(error);
  if (
    aborted ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  ) {
    return new NetworkError("timeout", `timed out after ${timeout} s`);
  }
  if (code === "ECONNREFUSED") return new NetworkError("refused", "connection refused");
  if (headersReceived || code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") {
    return new NetworkError("incomplete read", `incomplete read: the reply was cut short (${message})`);
  }
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") {
    return new NetworkError("reset", `connection reset (${message})`);
  }
  return new NetworkError("network", `network error: ${code ? `${code} ` : ""}${message}`);
}
