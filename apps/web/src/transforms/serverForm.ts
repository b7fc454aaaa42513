/**
 * The server form: values as typed, checks, the write-only API key, what "Check" sends and how its model list is
 * picked from, and the API's refusals placed on the fields they concern.
 */

import type { Server, ServerCheck, ServerCheckInput, ServerInput } from "@decision-workbench/api/shapes";
import { type FieldLabels, fieldProblems, type ProblemRule } from "./apiErrors";
import { servedByLabel } from "./servedBy";

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
  opts: { integer?: boolean; min: number; exclusive?: boolean; max: number },
): number | string {
  const t = text.trim();
  const x = Number(t);
  const kind = opts.integer ? "a whole number" : "a number";
  const bound = opts.exclusive ? `greater than ${opts.min}` : `${opts.min} or more`;
  if (t === "" || !Number.isFinite(x)) return `${field} must be ${kind} ${bound}, got "${text}"`;
  if (opts.integer && !Number.isInteger(x)) return `${field} must be ${kind}, got ${t}`;
  if (opts.exclusive ? x <= opts.min : x < opts.min) return `${field} must be ${bound}, got ${t}`;
  if (x > opts.max) return `${field} must be ${opts.max.toLocaleString("en-US")} or less, got ${t}`;
  return x;
}

/** What is wrong with a base URL as typed, or null when it is an http(s) URL without credentials. */
function baseUrlError(text: string): string | null {
  const baseUrl = text.trim();
  let url: URL | null = null;
  try {
    url = new URL(baseUrl);
  } catch {
    url = null;
  }
  if (!baseUrl) return "Enter the server's base URL, e.g. http://127.0.0.1:8009.";
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    return `“${baseUrl}” is not an http(s) URL; expected something like https://decisions.example.com.`;
  if (url.username || url.password)
    return "Remove the user name and password from the URL; put a key in the API key field instead.";
  return null;
}

/** The longest model name and the most models a server takes (the API's limits). */
const MODEL_NAME_MAX = 200;
const MODELS_MAX = 100;

/** What is wrong with a models list, or null. */
function modelsError(models: string[]): string | null {
  if (models.length === 0) return "List at least one model name, e.g. workbench-latest.";
  if (models.length > MODELS_MAX) return `${models.length} models are listed; keep it to ${MODELS_MAX}.`;
  const long = models.find((m) => m.length > MODEL_NAME_MAX);
  if (long)
    return `The model name “${long.slice(0, 40)}…” is ${long.length} characters long; keep it to ${MODEL_NAME_MAX}.`;
  return null;
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
  const urlError = baseUrlError(baseUrl);
  if (urlError) errors.baseUrl = urlError;

  const models = splitModels(v.models);
  const listError = modelsError(models);
  if (listError) errors.models = listError;

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

  const timeout = number(v.timeout, "Timeout", { min: 0, exclusive: true, max: 3600 });
  if (typeof timeout === "string") errors.timeout = timeout;
  const retries = number(v.retries, "Retries", { integer: true, min: 0, max: 20 });
  if (typeof retries === "string") errors.retries = retries;
  const backoff = number(v.backoff, "Backoff", { min: 0, max: 600 });
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

/** The form's fields in the order they are shown: the first invalid one of these takes the focus. */
export const SERVER_FIELD_ORDER: (keyof ServerFormValues)[] = [
  "name",
  "baseUrl",
  "apiKey",
  "models",
  "timeout",
  "retries",
  "backoff",
  "requestsPerMinute",
  "inputTokensPerMinute",
  "inputPricePerMillion",
  "outputPricePerMillion",
  "extraBody",
];

/** The first field of `errors` in the form's order, or null when there is none. */
export function firstInvalid(errors: ServerFormErrors): keyof ServerFormValues | null {
  return SERVER_FIELD_ORDER.find((k) => errors[k]) ?? null;
}

/**
 * What "Check" asks for the form as typed: the stored server's check (`stored`, its id) while an edited server's
 * base URL and key are unchanged (the stored key is never in the page), else the check of the settings typed
 * (`draft`), with only the settings that read well; a base URL that is not one is the error instead.
 */
export function checkRequest(
  v: ServerFormValues,
  existing?: Server,
):
  | { ok: true; stored: string }
  | { ok: true; draft: ServerCheckInput }
  | { ok: false; errors: ServerFormErrors } {
  const baseUrl = v.baseUrl.trim();
  const error = baseUrlError(baseUrl);
  if (error) return { ok: false, errors: { baseUrl: error } };
  if (existing && baseUrl === existing.baseUrl && !v.apiKey && !v.clearKey)
    return { ok: true, stored: existing.id };
  const draft: ServerCheckInput = { baseUrl };
  const models = splitModels(v.models).filter((m) => m.length <= MODEL_NAME_MAX);
  if (models.length) draft.models = models.slice(0, MODELS_MAX);
  if (v.apiKey && !v.clearKey && v.apiKey.trim() === v.apiKey) draft.apiKey = v.apiKey;
  try {
    const extra: unknown = v.extraBody.trim() ? JSON.parse(v.extraBody) : null;
    if (extra && typeof extra === "object" && !Array.isArray(extra))
      draft.extraBody = extra as Record<string, unknown>;
  } catch {
    // a body that does not parse is left out of a check; saving says what is wrong with it
  }
  const timeout = number(v.timeout, "Timeout", { min: 0, exclusive: true, max: 3600 });
  if (typeof timeout === "number") draft.timeout = timeout;
  const retries = number(v.retries, "Retries", { integer: true, min: 0, max: 20 });
  if (typeof retries === "number") draft.retries = retries;
  const backoff = number(v.backoff, "Backoff", { min: 0, max: 600 });
  if (typeof backoff === "number") draft.backoff = backoff;
  return { ok: true, draft };
}

/** The models chosen with `name` added at the end (`on`) or taken out; the others keep their order. */
export function toggleModel(models: string[], name: string, on: boolean): string[] {
  const rest = models.filter((m) => m !== name);
  return on ? [...rest, name] : rest;
}

/** What a check found, in sentences: about the model list, about the test question, and what to do next. */
export interface CheckSummary {
  ok: boolean;
  /** The models offered to pick from (names as the server lists them). */
  models: { name: string; description?: string }[];
  /** The sentence about the model list. */
  modelsSentence: string;
  /** The sentence about the test question. */
  probeSentence: string;
  /** The server's own words behind a failure, for a collapsed "details". */
  details: string[];
}

/**
 * Reads a check's answer for people: never an HTTP path or status outside `details`. `picking`: the models are
 * offered to tick (the form), else only shown (a server's card).
 */
export function checkSummary(check: ServerCheck, picking = true): CheckSummary {
  const models = check.models ?? [];
  const modelsSentence =
    check.models === null
      ? "The server did not list its models: type the names it accepts in Models."
      : models.length === 0
        ? "The server lists no models: type the names it accepts in Models."
        : `The server lists ${models.length === 1 ? "1 model" : `${models.length} models`}${picking ? ": tick the ones to use, or type another name." : ":"}`;
  const p = check.probe;
  const refusedKey = /\b(401|403)\b/.test(`${p.reason ?? ""} ${check.modelsError ?? ""}`);
  let probeSentence: string;
  if (p.status === "answered" || p.status === "unknown") {
    const answer = Array.isArray(p.answer) ? p.answer.join(", ") : p.answer;
    const said = p.status === "unknown" ? "“not stated”" : answer !== undefined ? `“${answer}”` : "an answer";
    const sure = p.confidence === undefined ? "" : ` with ${Math.round(p.confidence * 100)} % confidence`;
    const by = p.servedBy ? ` (served by ${servedByLabel([p.servedBy])})` : "";
    probeSentence = `A test question to ${p.model} was answered: ${said}${sure}${by}.`;
  } else if (p.model === "") {
    probeSentence = "No test question was sent: there is no model to ask yet.";
  } else if (refusedKey) {
    probeSentence = `A test question to ${p.model} was refused: check the API key.`;
  } else if (p.status === "escalated") {
    probeSentence = `A test question to ${p.model} got no usable answer; the details say what the server did.`;
  } else {
    probeSentence = `A test question to ${p.model} failed; the details say why.`;
  }
  const details = [check.modelsError, p.reason].filter((x): x is string => !!x);
  return { ok: check.ok, models, modelsSentence, probeSentence, details };
}

/** The form's fields by the API's names for them (the form uses the same names), as the form labels them. */
const SERVER_LABELS: FieldLabels = {
  name: "Name",
  baseUrl: "Base URL",
  models: "Models",
  apiKey: "API key",
  extraBody: "Extra body",
  timeout: { label: "Timeout", unit: "seconds" },
  retries: "Retries",
  backoff: { label: "Backoff", unit: "seconds" },
  requestsPerMinute: "Requests a minute",
  inputTokensPerMinute: "Input tokens a minute",
  inputPricePerMillion: "Input price per million tokens",
  outputPricePerMillion: "Output price per million tokens",
};

/** What the API says about a server's input in its own terms, tied to the form's fields and said the form's way. */
const SERVER_RULES: ProblemRule[] = [
  {
    pattern: /never sent to a new host/,
    field: "apiKey",
    rewrite: () =>
      "The stored key is never sent to a new address: type the key again for this base URL, or tick “Remove the stored key”",
  },
];

/**
 * The API's refusal of a save on the form's fields, rewritten ("body.timeout must be <= 3600" -> "Timeout must be
 * at most 3600 seconds"), and the problems no field is for.
 */
export function serverFormApiErrors(error: unknown): { errors: ServerFormErrors; rest: string[] } {
  const { byField, rest } = fieldProblems(error, SERVER_FIELD_ORDER, SERVER_LABELS, SERVER_RULES);
  return { errors: byField as ServerFormErrors, rest };
}
