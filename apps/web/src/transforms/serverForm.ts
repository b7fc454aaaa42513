/** The server form: values as typed, checks, and the write-only API key. */

import type { Server, ServerInput } from "@decision-workbench/api/shapes";

/** What the form holds (strings as typed). */
export interface ServerFormValues {
  name: string;
  baseUrl: string;
  /** Model names separated by commas or new lines. */
  models: string;
  /** A new key; empty keeps the stored one (editing) or sets none (adding). */
  apiKey: string;
  /** Remove the stored key. */
  clearKey: boolean;
  /** A JSON object merged into every request body, or empty. */
  extraBody: string;
  /** Seconds. */
  timeout: string;
  retries: string;
  /** Seconds. */
  backoff: string;
  deterministic: boolean;
  /** Requests a minute the server allows; empty: no limit. */
  requestsPerMinute: string;
  /** Estimated input tokens a minute the server allows; empty: no limit. */
  inputTokensPerMinute: string;
  /** Price of a million input tokens; empty: none. */
  inputPricePerMillion: string;
  /** Price of a million output tokens; empty: none. */
  outputPricePerMillion: string;
}

/** Errors by field. */
export type ServerFormErrors = Partial<Record<keyof ServerFormValues, string>>;

/** Starting values: a server's (never its key, which the API does not return) or empty ones. */
export function serverFormValues(server?: Server): ServerFormValues {
  if (!server) {
    return {
      name: "",
      baseUrl: "",
      models: "",
      apiKey: "",
      clearKey: false,
      extraBody: "",
      timeout: "30",
      retries: "2",
      backoff: "0.5",
      deterministic: false,
      requestsPerMinute: "",
      inputTokensPerMinute: "",
      inputPricePerMillion: "",
      outputPricePerMillion: "",
    };
  }
  return {
    name: server.name,
    baseUrl: server.baseUrl,
    models: server.models.join(", "),
    apiKey: "",
    clearKey: false,
    extraBody: Object.keys(server.extraBody ?? {}).length ? JSON.stringify(server.extraBody, null, 2) : "",
    timeout: String(server.timeout),
    retries: String(server.retries),
    backoff: String(server.backoff),
    deterministic: server.deterministic,
    requestsPerMinute: server.requestsPerMinute === null ? "" : String(server.requestsPerMinute),
    inputTokensPerMinute: server.inputTokensPerMinute === null ? "" : String(server.inputTokensPerMinute),
    inputPricePerMillion: server.inputPricePerMillion == null ? "" : String(server.inputPricePerMillion),
    outputPricePerMillion: server.outputPricePerMillion == null ? "" : String(server.outputPricePerMillion),
  };
}

/** A rate limit as typed: empty is no limit (null), else a number above 0; a string is the error. */
function perMinute(text: string, field: string, example: string): number | null | string {
  const t = text.trim().replace(/[_\s,]/g, "");
  if (t === "") return null;
  const x = Number(t);
  if (!Number.isFinite(x) || x <= 0 || x > 1e9)
    return `${field} must be a number above 0 (a minute's worth, e.g. ${example}), or empty for no limit; got "${text}"`;
  return x;
}

/** A price or cap as typed: empty is none (null), else a number above 0; a string is the error. */
export function amount(text: string, field: string, example: string): number | null | string {
  const t = text.trim().replace(/[_\s,]/g, "");
  if (t === "") return null;
  const x = Number(t);
  if (!Number.isFinite(x) || x <= 0 || x > 1e12)
    return `${field} must be a number above 0 (e.g. ${example}), or empty for none; got "${text}"`;
  return x;
}

/** Splits a models field on commas and new lines, trimmed, duplicates removed. */
export function splitModels(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

function number(
  text: string,
  field: string,
  opts: { integer?: boolean; min: number; exclusive?: boolean },
): number | string {
  const t = text.trim();
  const x = Number(t);
  const kind = opts.integer ? "a whole number" : "a number";
  const bound = opts.exclusive ? `greater than ${opts.min}` : `${opts.min} or more`;
  if (t === "" || !Number.isFinite(x)) return `${field} must be ${kind} ${bound}, got "${text}"`;
  if (opts.integer && !Number.isInteger(x)) return `${field} must be ${kind}, got ${t}`;
  if (opts.exclusive ? x <= opts.min : x < opts.min) return `${field} must be ${bound}, got ${t}`;
  return x;
}

/**
 * Checks the form. For a new server the input is complete; for an edit it is the full set of fields except the
 * key, which is sent only when a new one was typed (`apiKey`) or removal was asked (`apiKey: null`).
 */
export function parseServerForm(
  v: ServerFormValues,
  existing?: Server,
): { ok: true; input: Partial<ServerInput> } | { ok: false; errors: ServerFormErrors } {
  const errors: ServerFormErrors = {};
  const name = v.name.trim();
  if (!name) errors.name = "Give the server a name, e.g. “Production classifier”.";
  else if (name.length > 100) errors.name = `The name is ${name.length} characters long; keep it to 100.`;

  const baseUrl = v.baseUrl.trim();
  let url: URL | null = null;
  try {
    url = new URL(baseUrl);
  } catch {
    url = null;
  }
  if (!baseUrl) errors.baseUrl = "Enter the server's base URL, e.g. http://127.0.0.1:8009.";
  else if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    errors.baseUrl = `“${baseUrl}” is not an http(s) URL; expected something like https://decisions.example.com.`;
  else if (url.username || url.password)
    errors.baseUrl =
      "Remove the user name and password from the URL; put a key in the API key field instead.";

  const models = splitModels(v.models);
  if (models.length === 0) errors.models = "List at least one model name, e.g. workbench-latest.";

  let extraBody: Record<string, unknown> = {};
  if (v.extraBody.trim()) {
    try {
      const parsed: unknown = JSON.parse(v.extraBody);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
        errors.extraBody = 'Extra body must be a JSON object, e.g. {"options": {"max_think": 256}}.';
      else extraBody = parsed as Record<string, unknown>;
    } catch (e) {
      errors.extraBody = `Extra body is not valid JSON: ${(e as Error).message}.`;
    }
  }

  const timeout = number(v.timeout, "Timeout", { min: 0, exclusive: true });
  if (typeof timeout === "string") errors.timeout = timeout;
  const retries = number(v.retries, "Retries", { integer: true, min: 0 });
  if (typeof retries === "string") errors.retries = retries;
  const backoff = number(v.backoff, "Backoff", { min: 0 });
  if (typeof backoff === "string") errors.backoff = backoff;
  const requestsPerMinute = perMinute(v.requestsPerMinute, "Requests a minute", "1200");
  if (typeof requestsPerMinute === "string") errors.requestsPerMinute = requestsPerMinute;
  const inputTokensPerMinute = perMinute(v.inputTokensPerMinute, "Input tokens a minute", "200000");
  if (typeof inputTokensPerMinute === "string") errors.inputTokensPerMinute = inputTokensPerMinute;
  const inputPrice = amount(v.inputPricePerMillion ?? "", "Input price per million tokens", "0.15");
  if (typeof inputPrice === "string") errors.inputPricePerMillion = inputPrice;
  const outputPrice = amount(v.outputPricePerMillion ?? "", "Output price per million tokens", "0.6");
  if (typeof outputPrice === "string") errors.outputPricePerMillion = outputPrice;

  if (v.apiKey && v.clearKey) errors.apiKey = "Either type a new key or remove the stored one, not both.";
  else if (v.apiKey && v.apiKey.trim() !== v.apiKey)
    errors.apiKey = "The key starts or ends with spaces; paste it without them.";

  if (Object.keys(errors).length) return { ok: false, errors };

  const input: Partial<ServerInput> = {
    name,
    baseUrl,
    models,
    extraBody,
    timeout: timeout as number,
    retries: retries as number,
    backoff: backoff as number,
    deterministic: v.deterministic,
    requestsPerMinute: requestsPerMinute as number | null,
    inputTokensPerMinute: inputTokensPerMinute as number | null,
    inputPricePerMillion: inputPrice as number | null,
    outputPricePerMillion: outputPrice as number | null,
  };
  if (v.apiKey) input.apiKey = v.apiKey;
  else if (v.clearKey && existing?.hasApiKey) input.apiKey = null;
  return { ok: true, input };
}
