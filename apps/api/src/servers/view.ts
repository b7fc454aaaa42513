/** Server input checks, stored rows and the public view (which never holds a key, credentials or a query). */

import { DecisionScorer, ValueError } from "@decision-workbench/scorer";
import { checkAmounts, PRICE_FIELDS } from "../engine/cost-guard.js";
import { badRequest } from "../errors.js";
import type { SecretBox } from "../secrets/box.js";
import type { Server, ServerInput } from "../shapes/servers.js";
import type { ServerRow } from "../storage/types.js";
import { secretContext } from "./connect.js";

/** Defaults of the contract: 30 s timeout, 2 retries, 1 s backoff. */
const SERVER_DEFAULTS = { timeout: 30, retries: 2, backoff: 1, deterministic: false } as const;

/** The base URL as shown: scheme, host, path; no credentials, query or fragment. */
export function displayBaseUrl(baseUrl: string): string {
  const u = new URL(baseUrl.trim());
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
}

/** Schemes named when refused (any other text before a colon might be part of a key). */
const KNOWN_SCHEMES = new Set([
  "ftp:",
  "file:",
  "ws:",
  "wss:",
  "data:",
  "javascript:",
  "mailto:",
  "ssh:",
  "git:",
  "unix:",
]);

/**
 * Refuses a base URL that is not an http(s) URL with a 400 that never quotes it: a key pasted into the wrong
 * field must not come back in a response. At most the scheme and the host are named.
 */
function checkBaseUrlText(baseUrl: string, field = "body.baseUrl"): void {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw badRequest(
      `${field} is not a URL (its text is not repeated here: it may hold a key); expected an http:// or https:// address such as http://127.0.0.1:8009`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw badRequest(
      `${field}: base_url must use http:// or https://, not ${KNOWN_SCHEMES.has(url.protocol) ? `${url.protocol}//` : "another scheme"} (for example http://127.0.0.1:8009)`,
    );
  }
  if (!url.hostname)
    throw badRequest(`${field} has no host; expected an address such as http://127.0.0.1:8009`);
}

/** A server's limits and prices (each a number, or null for none). */
export type ServerLimits = Pick<
  ServerRow,
  "requestsPerMinute" | "inputTokensPerMinute" | "inputPricePerMillion" | "outputPricePerMillion"
>;

/** The stored limits and prices with a change laid over them: a field left undefined keeps, null clears. */
export function changedLimits(stored: ServerLimits, change: Partial<ServerLimits>): ServerLimits {
  const pick = <K extends keyof ServerLimits>(k: K) => (change[k] === undefined ? stored[k] : change[k]);
  return {
    requestsPerMinute: pick("requestsPerMinute"),
    inputTokensPerMinute: pick("inputTokensPerMinute"),
    inputPricePerMillion: pick("inputPricePerMillion"),
    outputPricePerMillion: pick("outputPricePerMillion"),
  };
}

/** Largest rate limit taken (a minute). */
const MAX_PER_MINUTE = 1e9;

/** Refuses a rate limit that is not a positive number of `what` a minute (null: no limit). */
function checkRateLimits(input: Pick<ServerInput, "requestsPerMinute" | "inputTokensPerMinute">): void {
  const fields = [
    ["requestsPerMinute", "requests a minute, such as 1200"],
    ["inputTokensPerMinute", "estimated input tokens a minute, such as 200000"],
  ] as const;
  for (const [field, what] of fields) {
    const v = input[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > MAX_PER_MINUTE) {
      throw badRequest(
        `body.${field} must be a number of ${what} (above 0, at most ${MAX_PER_MINUTE}), or null for no limit; got ${JSON.stringify(v)}`,
      );
    }
  }
}

/**
 * Checks base URL, models and extraBody the way the scorer will (its own messages: a reserved field in
 * extraBody is refused with the scorer's ValueError text); returns the endpoint.
 */
export function checkServerInput(
  input: Pick<ServerInput, "baseUrl" | "models" | "extraBody"> & ServerInput,
  field = "body.baseUrl",
): string {
  const models = input.models;
  if (new Set(models).size !== models.length) {
    const twice = models.find((m, i) => models.indexOf(m) !== i);
    throw badRequest(`body.models lists ${JSON.stringify(twice)} twice; give each model once`);
  }
  checkBaseUrlText(input.baseUrl, field);
  checkRateLimits(input);
  checkAmounts(input as unknown as Record<string, unknown>, PRICE_FIELDS);
  try {
    const scorer = new DecisionScorer(input.baseUrl, models[0], null, {
      ...(input.extraBody ? { extraBody: input.extraBody } : {}),
      timeout: input.timeout ?? SERVER_DEFAULTS.timeout,
      retries: input.retries ?? SERVER_DEFAULTS.retries,
      backoff: input.backoff ?? SERVER_DEFAULTS.backoff,
    });
    return scorer.endpoint;
  } catch (err) {
    if (err instanceof ValueError) throw badRequest(err.message);
    throw err;
  }
}

/** A new stored row from a checked input. */
export function serverRow(
  id: string,
  input: ServerInput,
  endpoint: string,
  box: SecretBox,
  embedded = false,
): ServerRow {
  return {
    id,
    name: input.name,
    baseUrl: displayBaseUrl(input.baseUrl),
    baseUrlSecret: box.encrypt(input.baseUrl.trim(), secretContext(id, "baseUrl")),
    endpoint,
    models: input.models,
    apiKeySecret:
      input.apiKey === undefined || input.apiKey === null
        ? null
        : box.encrypt(input.apiKey, secretContext(id, "apiKey")),
    extraBody: input.extraBody ?? {},
    timeout: input.timeout ?? SERVER_DEFAULTS.timeout,
    retries: input.retries ?? SERVER_DEFAULTS.retries,
    backoff: input.backoff ?? SERVER_DEFAULTS.backoff,
    deterministic: input.deterministic ?? SERVER_DEFAULTS.deterministic,
    requestsPerMinute: input.requestsPerMinute ?? null,
    inputTokensPerMinute: input.inputTokensPerMinute ?? null,
    inputPricePerMillion: input.inputPricePerMillion ?? null,
    outputPricePerMillion: input.outputPricePerMillion ?? null,
    embedded,
    createdAt: new Date().toISOString(),
  };
}

/** The public view of a stored server. */
export function serverView(row: ServerRow): Server {
  return {
    id: row.id,
    name: row.name,
    baseUrl: row.baseUrl,
    endpoint: row.endpoint,
    models: row.models,
    hasApiKey: row.apiKeySecret !== null,
    extraBody: row.extraBody,
    timeout: row.timeout,
    retries: row.retries,
    backoff: row.backoff,
    deterministic: row.deterministic,
    requestsPerMinute: row.requestsPerMinute,
    inputTokensPerMinute: row.inputTokensPerMinute,
    inputPricePerMillion: row.inputPricePerMillion,
    outputPricePerMillion: row.outputPricePerMillion,
    embedded: row.embedded,
    createdAt: row.createdAt,
  };
}
