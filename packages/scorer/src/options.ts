import { abortErrorOf } from "./abort.js";
import { DEFAULTS, MAX_RETRY_WAIT } from "./constants.js";
import { ValueError } from "./errors.js";
import { undiciOpener } from "./opener.js";
import type { DeciderOptions, Opener } from "./types.js";

/** Constructor options checked and defaulted. */
export interface Settings {
  timeout: number;
  retries: number;
  backoff: number;
  opener: Opener;
  sleep: (seconds: number) => Promise<void>;
  extraBody?: Record<string, unknown>;
  maxRetryWait: number;
  jitter: boolean;
}

const SCORER_KEYS = [
  "timeout",
  "opener",
  "extraBody",
  "retries",
  "backoff",
  "sleep",
  "maxRetryWait",
  "jitter",
];
const DECIDER_KEYS = [...SCORER_KEYS, "deterministic", "maxLen"];
const RESERVED = ["model", "state", "questions"];

/** The default sleep: a timer (the scorer cancels it when the call's signal aborts). */
export const realSleep = (seconds: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));

/** Waits `seconds` with the default timer, cleared (and an AbortError thrown) when `signal` aborts. */
export function abortableSleep(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortErrorOf(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, seconds * 1000);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Checks the positional arguments after base_url: model and the optional API key. */
export function checkModelAndKey(model: unknown, apiKey: unknown): void {
  if (typeof model !== "string" || model.trim() === "") {
    throw new ValueError(
      `model must be a non-empty string (the name sent as \`model\`), got ${JSON.stringify(model)}`,
    );
  }
  if (apiKey === undefined || apiKey === null) return;
  if (typeof apiKey !== "string") {
    throw new ValueError(
      `api_key must be a string or undefined, got ${typeof apiKey}; options go in the fourth argument: (baseUrl, model, apiKey, { timeout, ... })`,
    );
  }
  if (apiKey === "")
    throw new ValueError("api_key is an empty string; pass undefined for a server without a key");
}

/** Checks and defaults the options object (everything after the API key). */
export function readSettings(options: unknown, decider = false): Settings {
  if (options === undefined || options === null) options = {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new ValueError("options must be an object such as { timeout: 30, retries: 2 }");
  }
  const o = options as Record<string, unknown>;
  const allowed = decider ? DECIDER_KEYS : SCORER_KEYS;
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) {
      throw new ValueError(`unknown option '${key}'; expected one of ${allowed.join(", ")}`);
    }
  }
  const timeout = o.timeout ?? DEFAULTS.timeout;
  if (typeof timeout !== "number" || !(timeout > 0) || !Number.isFinite(timeout)) {
    throw new ValueError(`timeout must be a positive number of seconds, got ${JSON.stringify(timeout)}`);
  }
  const retries = o.retries ?? DEFAULTS.retries;
  if (typeof retries !== "number" || !Number.isInteger(retries) || retries < 0) {
    throw new ValueError(
      `retries must be a non-negative integer (extra attempts), got ${JSON.stringify(retries)}`,
    );
  }
  const backoff = o.backoff ?? DEFAULTS.backoff;
  if (typeof backoff !== "number" || !(backoff >= 0) || !Number.isFinite(backoff)) {
    throw new ValueError(`backoff must be a non-negative number of seconds, got ${JSON.stringify(backoff)}`);
  }
  const opener = o.opener ?? undiciOpener;
  if (typeof opener !== "function")
    throw new ValueError("opener must be a function (request) => Promise<response>");
  const sleep = o.sleep ?? realSleep;
  if (typeof sleep !== "function")
    throw new ValueError("sleep must be a function (seconds) => Promise<void>");
  const maxRetryWait = o.maxRetryWait ?? MAX_RETRY_WAIT;
  if (typeof maxRetryWait !== "number" || !(maxRetryWait >= 0) || !Number.isFinite(maxRetryWait)) {
    throw new ValueError(
      `maxRetryWait must be a non-negative number of seconds (the longest Retry-After honoured; default 60), got ${JSON.stringify(maxRetryWait)}`,
    );
  }
  const jitter = o.jitter ?? false;
  if (typeof jitter !== "boolean") {
    throw new ValueError(`jitter must be true or false, got ${JSON.stringify(jitter)}`);
  }
  if (decider) checkDeciderOptions(o as DeciderOptions);
  return {
    maxRetryWait,
    jitter,
    timeout,
    retries,
    backoff,
    opener: opener as Opener,
    sleep: sleep as Settings["sleep"],
    extraBody: copyExtraBody(o.extraBody),
  };
}

function checkDeciderOptions(o: DeciderOptions): void {
  if (o.deterministic !== undefined && typeof o.deterministic !== "boolean") {
    throw new ValueError(`deterministic must be true or false, got ${JSON.stringify(o.deterministic)}`);
  }
  const maxLen = o.maxLen;
  if (maxLen !== undefined && maxLen !== null && (!Number.isInteger(maxLen) || maxLen <= 0)) {
    throw new ValueError(
      `maxLen must be a positive integer of tokens or null (512), got ${JSON.stringify(maxLen)}`,
    );
  }
}

/** A deep copy of extra_body; it may never hold the client's own fields. */
function copyExtraBody(extraBody: unknown): Record<string, unknown> | undefined {
  if (extraBody === undefined || extraBody === null) return undefined;
  if (typeof extraBody !== "object" || Array.isArray(extraBody)) {
    throw new ValueError(
      "extraBody must be an object of extra request fields, such as { options: { max_think: 768 } }",
    );
  }
  const clash = RESERVED.filter((key) => key in extraBody);
  if (clash.length) {
    throw new ValueError(
      `extraBody cannot set ${clash.map((k) => `'${k}'`).join(", ")}: model, state and questions are the client's own fields; pass the model as the second argument`,
    );
  }
  let text: string;
  try {
    text = JSON.stringify(extraBody);
  } catch (error) {
    throw new ValueError(`extraBody must be plain JSON: ${(error as Error).message}`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}
