/** The one fetch wrapper of the app: JSON in, JSON out, API errors thrown as they are. */

import { getToken } from "./token";

/** An error answered by the API (`{error: {code, message, details}}`), or a transport failure. */
export class ApiError extends Error {
  /** HTTP status (0 when the API could not be reached). */
  readonly status: number;
  /** The API's error code, e.g. "invalid_dataset". */
  readonly code: string;
  /** The API's details, e.g. located validation errors. */
  readonly details: unknown[];
  /** The request that was answered, e.g. `{method: "GET", path: "/runs/run_1"}` (path under /api), when known. */
  readonly request?: { method: string; path: string };

  constructor(
    status: number,
    code: string,
    message: string,
    details: unknown[] = [],
    request?: { method: string; path: string },
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.request = request;
  }
}

/** Base path of every API route. */
export const API_BASE = "/api";

/**
 * Reads an error body; falls back to the status line when the body is not the API's error shape. `request` (the
 * method and the path under /api) is kept on the error, so a page can say what was not found.
 */
export async function errorFromResponse(
  res: Response,
  request?: { method: string; path: string },
): Promise<ApiError> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    const e = body.error;
    if (e && typeof e.message === "string") {
      return new ApiError(
        res.status,
        typeof e.code === "string" ? e.code : "error",
        e.message,
        Array.isArray(e.details) ? e.details : [],
        request,
      );
    }
  } catch {
    // not JSON: use the status line below
  }
  const status = `${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
  const snippet = text.trim().slice(0, 200);
  return new ApiError(
    res.status,
    "http_error",
    snippet ? `HTTP ${status}: ${snippet}` : `HTTP ${status}`,
    [],
    request,
  );
}

/**
 * The headers of every API call: the token when there is one, and `X-Workbench`, which makes even a bodiless POST
 * a request that another site's page cannot send without a preflight (the API refuses state-changing requests
 * that carry neither it nor a JSON body).
 */
export function apiHeaders(): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json", "x-workbench": "1" };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

/** Calls `/api{path}`; sends `body` as JSON; resolves the parsed JSON (undefined for 204) or throws ApiError. */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers = apiHeaders();
  let body: string | undefined;
  if (init.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.body);
  }
  const method = init.method ?? "GET";
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      body,
      signal: init.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(
      0,
      "unreachable",
      `Could not reach the workbench API (${(err as Error).message}). Is \`pnpm workbench serve\` running?`,
      [],
      { method, path },
    );
  }
  if (!res.ok) throw await errorFromResponse(res, { method, path });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Builds a query string from defined values (`?a=1&b=x`), or "" when there are none. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
