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

const agents = new Map<number, Agent>();

/** Keep-alive pools shared by every scorer of the process, one per timeout (it bounds the connect too). */
function agentFor(ms: number): Agent {
  let agent = agents.get(ms);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      connections: 256,
      connect: { timeout: ms },
      headersTimeout: ms,
      bodyTimeout: ms,
    });
    agents.set(ms, agent);
  }
  return agent;
}

/**
 * The default opener: undici over a shared keep-alive pool. `timeout` seconds bound the connect, the wait for
 * the reply's headers and every wait between body chunks (the socket-timeout semantics of the Python client).
 */
export const undiciOpener: Opener = async (req: OpenerRequest): Promise<OpenerResponse> => {
  const ms = Math.max(1, Math.round(req.timeout * 1000));
  let headersReceived = false;
  try {
    const res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      dispatcher: agentFor(ms),
    });
    headersReceived = true;
    const body = await res.body.text();
    return { status: res.statusCode, headers: res.headers, body };
  } catch (error) {
    throw classify(error, headersReceived, req.timeout);
  }
};

const TIMEOUTS = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);
const RESETS = new Set(["ECONNRESET", "UND_ERR_SOCKET", "EPIPE"]);

function classify(error: unknown, headersReceived: boolean, timeout: number): NetworkError {
  const code = (error as { code?: string }).code ?? "";
  const message = error instanceof Error ? error.message : String(error);
  if (TIMEOUTS.has(code)) return new NetworkError("timeout", `timed out after ${timeout} s`);
  if (code === "ECONNREFUSED") return new NetworkError("refused", "connection refused");
  if (headersReceived || code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") {
    return new NetworkError("incomplete read", `incomplete read: the reply was cut short (${message})`);
  }
  if (RESETS.has(code)) return new NetworkError("reset", `connection reset (${message})`);
  return new NetworkError("network", `network error: ${code ? `${code} ` : ""}${message}`);
}
