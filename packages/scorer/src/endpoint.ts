import { ValueError } from "./errors.js";

/** Where requests go and how the endpoint is shown. */
export interface Target {
  /** The URL requests are sent to: base path + /v1/decision, the base query kept, credentials removed. */
  url: string;
  /** The endpoint for records, fingerprints and errors: no credentials, no query, no fragment. */
  endpoint: string;
  /** Credentials found in the base URL (`user:pass@`), sent as Basic auth only when no API key is given. */
  basicAuth?: string;
}

const PATH = "/v1/decision";

/**
 * Resolves `{base_url}/v1/decision` (a base URL ending in /v1/decision is kept as it is), refusing every scheme
 * but http and https.
 */
export function resolveTarget(baseUrl: unknown): Target {
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
    throw new ValueError(`base_url must be a non-empty http:// or https:// URL, got ${describe(baseUrl)}`);
  }
  let parsed: URL;
  try {
    parsed = new URL(baseUrl.trim());
  } catch {
    throw new ValueError(
      `base_url ${quoteSafe(baseUrl)} is not a URL; expected an http:// or https:// address such as http://127.0.0.1:8009`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ValueError(
      `base_url must use http:// or https://, not ${parsed.protocol}// (for example http://127.0.0.1:8009)`,
    );
  }
  let basicAuth: string | undefined;
  if (parsed.username || parsed.password) {
    const user = decodeURIComponent(parsed.username);
    const pass = decodeURIComponent(parsed.password);
    basicAuth = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    parsed.username = "";
    parsed.password = "";
  }
  parsed.hash = "";
  // A base URL that already ends in /v1/decision is the endpoint itself: the path is not appended again.
  const trimmed = parsed.pathname.replace(/\/+$/, "");
  const path = trimmed.endsWith(PATH) ? trimmed : trimmed + PATH;
  const origin = `${parsed.protocol}//${parsed.host}`;
  return { url: origin + path + parsed.search, endpoint: origin + path, basicAuth };
}

/** Shows a base URL in an error without its credentials or query, which may hold a key. */
function quoteSafe(value: string): string {
  const cut = value.replace(/\/\/[^/@]*@/, "//").replace(/[?#].*$/, "");
  return JSON.stringify(cut.length > 80 ? `${cut.slice(0, 80)}…` : cut);
}

function describe(value: unknown): string {
  return value === null ? "null" : typeof value === "string" ? "an empty string" : typeof value;
}
