import { performance } from "node:perf_hooks";
import { LRUCache } from "lru-cache";
import { AbortError, abortErrorOf, checkSignal, raceAbort, throwIfAborted } from "./abort.js";
import { BodyWriter, questionIds, questionPrefix, questionSuffixes } from "./body.js";
import { CACHE_SIZE } from "./constants.js";
import { resolveTarget } from "./endpoint.js";
import { unwrapReply } from "./envelope.js";
import { EscalationError, ServiceError, ValueError } from "./errors.js";
import { errorText } from "./errorText.js";
import { fingerprint } from "./fingerprint.js";
import type { NormalItem } from "./items.js";
import { normalizeItem } from "./items.js";
import { parseLenientJson } from "./json.js";
import { InvalidOutput, readAnswers, singleLogits } from "./logits.js";
import { undiciOpener } from "./opener.js";
import type { Settings } from "./options.js";
import { abortableSleep, checkModelAndKey, readSettings, realSleep } from "./options.js";
import { OrderedState } from "./orderedState.js";
import { buildQuestions } from "./questions.js";
import { redact } from "./redact.js";
import { readCost, readLatency, readReasoning, readServedBy, readUsage } from "./reply.js";
import { headerValue, requestIdOf } from "./requestId.js";
import { retryAfterSeconds } from "./retryAfter.js";
import type {
  CallOptions,
  DecisionRecord,
  Item,
  ItemScore,
  OpenerResponse,
  Question,
  ReadResult,
  Reasoning,
  ScorerOptions,
  State,
  Usage,
} from "./types.js";

type Reply = Record<string, unknown>;
interface Answered {
  reply: Reply;
  /** The reply's text, which the cache keeps instead of the parsed reply. */
  text: string;
  /** The call's duration in whole µs (an integer: the cache keeps it without a boxed double). */
  micros: number;
  ms: number;
  /** Read once from the reply: summed into the scorer's totals and copied into every record. */
  usage?: Usage;
  cost?: number;
  /** The reply's request id, when it sent one. */
  requestId?: string;
}

/** What the answer cache keeps of an answered request. */
interface Kept {
  text: string;
  micros: number;
  requestId?: string;
}

const RETRY_STATUS = new Set([408, 409, 429]);
const REFUSED_STATUS = new Set([400, 413, 422]);

/** The client adapter of a decision service: items -> questions -> POST {base_url}/v1/decision -> logits. */
export class DecisionScorer {
  /** `{base_url}/v1/decision` without credentials or query: what records, fingerprints and errors show. */
  readonly endpoint: string;
  /** The model name sent as `model`. */
  readonly model: string;
  /** Identifies endpoint, model and extra_body (never the key). */
  readonly fingerprint: string;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #apiKey: string | undefined;
  readonly #settings: Settings;
  readonly #body: BodyWriter;
  /**
   * Request body (its key, see BodyWriter) -> the reply's text and the call's duration. Text, not the parsed
   * reply: every entry outlives the young generation, and flat strings cost the garbage collector far less
   * to promote and mark than the reply's tree of objects. A hit parses the text again.
   */
  readonly #cache = new LRUCache<string, Kept>({ max: CACHE_SIZE });
  readonly #inflight = new Map<string, Promise<Answered>>();
  readonly #usage: Required<Usage> = { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 };
  #cost = 0;

  constructor(baseUrl: string, model: string, apiKey?: string | null, options: ScorerOptions = {}) {
    const target = resolveTarget(baseUrl);
    checkModelAndKey(model, apiKey);
    this.#settings = readSettings(options);
    this.endpoint = target.endpoint;
    this.model = model;
    this.#url = target.url;
    this.#apiKey = apiKey ?? undefined;
    this.#headers = { "content-type": "application/json", accept: "application/json" };
    if (apiKey) this.#headers.authorization = `Bearer ${apiKey}`;
    else if (target.basicAuth) this.#headers.authorization = target.basicAuth;
    this.fingerprint = fingerprint(this.endpoint, model, this.#settings.extraBody);
    this.#body = new BodyWriter(model, this.#settings.extraBody);
  }

  /** Usage summed over every request so far (cache hits are not requests). */
  get usage(): Usage {
    return { ...this.#usage };
  }

  /** Cost in USD summed over every request so far, when the service reports it. */
  get cost(): number {
    return this.#cost;
  }

  /** The questions of one item, keyed by name suffix (`""`, `__{j}`, `__ns`). */
  questions(item: Item): Record<string, Question> {
    return structuredClone(buildQuestions(normalizeItem(item))) as Record<string, Question>;
  }

  /** Log-probabilities of a single-question answer in option order, `not stated` last when allowed. */
  answerLogits(item: Item, answer: unknown): number[] {
    const normal = normalizeItem(item);
    if (normal.kind === "multi") {
      throw new ValueError(
        `item '${normal.name}' is multi-label: it has one answer per option; use read(item, answers) instead`,
      );
    }
    return withInvalidAsEscalation(() => singleLogits(normal, answer, "the answer"));
  }

  /** Scorer output (`logits`, and `unknown` when allowed) from a map of name suffix -> answer. */
  read(item: Item, answers: Record<string, unknown>): ReadResult {
    const normal = normalizeItem(item);
    if (typeof answers !== "object" || answers === null) {
      throw new ValueError("answers must be an object of name suffix -> answer");
    }
    return withInvalidAsEscalation(() => readAnswers(normal, answers));
  }

  /**
   * Sends one request body (extra_body merged under it) with the contract's retries. Resolves to the reply;
   * rejects with EscalationError (the decision escalates) or ServiceError (wrong key, model or URL).
   */
  async request(
    body: Record<string, unknown>,
    options: { signal?: AbortSignal } = {},
  ): Promise<Record<string, unknown>> {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new ValueError("request(body) takes an object with model, state and questions");
    }
    const signal = checkSignal(options?.signal, "request(body, options)");
    throwIfAborted(signal);
    return (await this.#send(bodyText({ ...this.#settings.extraBody, ...body }), signal)).reply;
  }

  /**
   * The batch call: one request for all the items of one input; per item its logits or escalation, and its
   * record. Answered requests are cached by body; `{ cache: false }` asks the service again. Aborting
   * `signal` rejects the call with an AbortError (nothing escalates, nothing is cached).
   */
  async score(state: State, items: Item[], options: CallOptions = {}): Promise<ItemScore[]> {
    const fresh = options?.cache === false;
    const signal = checkSignal(options?.signal, "score(state, items, options)");
    checkState(state);
    if (!Array.isArray(items) || items.length === 0) {
      throw new ValueError("score(state, items) needs a non-empty list of items");
    }
    const normal = items.map(normalizeItem);
    throwIfAborted(signal);
    const { text, key, count } = this.#body.write(state, normal);
    const started = performance.now();
    let answered: Answered;
    try {
      const hit = fresh ? undefined : this.#cache.get(key);
      if (hit) answered = this.#cached(hit);
      else if (fresh) answered = await this.#send(text, signal);
      else answered = await this.#shared(text, key, signal);
    } catch (error) {
      if (!(error instanceof EscalationError)) throw error;
      const record: DecisionRecord = {
        endpoint: this.endpoint,
        model: this.model,
        ms: elapsed(started),
        questions: count,
      };
      if (error.requestId !== undefined) record.request_id = error.requestId;
      return normal.map((item) => escalated(item, error.reason, record));
    }
    const results = this.#readReply(normal, answered, count);
    for (const result of results) if (result.escalate !== undefined) return results;
    const kept: Kept = { text: answered.text, micros: answered.micros };
    if (answered.requestId !== undefined) kept.requestId = answered.requestId;
    this.#cache.set(key, kept);
    return results;
  }

  /**
   * Identical asks arriving while one is in flight share its call. A caller whose own signal aborts stops
   * waiting (the shared call goes on); one whose shared call was aborted by its first caller asks again.
   */
  async #shared(text: string, key: string, signal: AbortSignal | undefined): Promise<Answered> {
    const pending = this.#inflight.get(key);
    if (pending) {
      try {
        return await raceAbort(pending, signal);
      } catch (error) {
        if (!(error instanceof AbortError) || signal?.aborted) throw error;
        if (this.#inflight.get(key) === pending) this.#inflight.delete(key);
        return this.#shared(text, key, signal);
      }
    }
    const sent = this.#send(text, signal);
    this.#inflight.set(key, sent);
    try {
      return await sent;
    } finally {
      if (this.#inflight.get(key) === sent) this.#inflight.delete(key);
    }
  }

  /** A cached reply read again (it was read without error when it was kept). */
  #cached(hit: Kept): Answered {
    const read = this.#read(hit.text, hit.micros, hit.requestId);
    if (typeof read === "string") throw new EscalationError(`invalid decision output: ${read}`);
    return read;
  }

  #count(usage: Usage | undefined, cost: number | undefined): void {
    if (usage) {
      this.#usage.input_tokens += usage.input_tokens ?? 0;
      this.#usage.output_tokens += usage.output_tokens ?? 0;
      this.#usage.reasoning_tokens += usage.reasoning_tokens ?? 0;
    }
    this.#cost += cost ?? 0;
  }

  #readReply(
    items: NormalItem[],
    { reply, ms, usage, cost, requestId }: Answered,
    questions: number,
  ): ItemScore[] {
    const base: DecisionRecord = { endpoint: this.endpoint, model: this.model, ms, questions };
    if (requestId !== undefined) base.request_id = requestId;
    const servedBy = readServedBy(reply, this.model);
    if (servedBy !== undefined) base.served_by = servedBy;
    if (usage) base.usage = { ...usage };
    if (cost !== undefined) base.cost = cost;
    const latency = readLatency(reply);
    if (latency !== undefined) base.latency_ms = latency;
    const answers = reply.answers;
    const reasoning = reply.reasoning as Record<string, unknown> | undefined;
    const tag = requestTag(requestId);
    const results: ItemScore[] = [];
    for (let i = 0; i < items.length; i++)
      results.push(this.#readItem(items[i], i, answers, reasoning, base, tag));
    return results;
  }

  /** One item's output from the reply's answers, with its own copy of the record. */
  #readItem(
    item: NormalItem,
    i: number,
    answers: unknown,
    reasoning: Record<string, unknown> | undefined,
    base: DecisionRecord,
    tag: string,
  ): ItemScore {
    const record: DecisionRecord = { ...base };
    const prefix = questionPrefix(i);
    const audit = reasoningOf(item, prefix, reasoning);
    if (audit) record.reasoning = audit;
    if (typeof answers !== "object" || answers === null || Array.isArray(answers)) {
      return escalated(item, `invalid decision output: the reply has no answers object${tag}`, record);
    }
    const suffixes = questionSuffixes(item);
    const ids = questionIds(item, i);
    const own: Record<string, unknown> = {};
    for (let j = 0; j < suffixes.length; j++) own[suffixes[j]] = (answers as Reply)[ids[j]];
    try {
      const read = readAnswers(item, own, prefix);
      return read.unknown === undefined
        ? { logits: read.logits, record }
        : { logits: read.logits, unknown: read.unknown, record };
    } catch (error) {
      if (!(error instanceof InvalidOutput)) throw error;
      return escalated(item, `invalid decision output: ${error.message}${tag}`, record);
    }
  }

  /**
   * One request with retries: backoff * 2^k seconds through `sleep` between attempts (drawn from [0, that]
   * with `jitter`), or a 429's / 503's Retry-After when longer, up to `maxRetryWait`. An aborted signal
   * rejects with an AbortError at once, also during a wait.
   */
  async #send(text: string, signal?: AbortSignal): Promise<Answered> {
    const { retries, backoff, opener, timeout, maxRetryWait, jitter } = this.#settings;
    const started = performance.now();
    let cause = "";
    let causeId: string | undefined;
    let asked: number | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        let wait = backoff * 2 ** (attempt - 1);
        if (jitter) wait *= Math.random();
        if (asked !== undefined) wait = Math.max(wait, Math.min(asked, maxRetryWait));
        await this.#sleep(wait, signal);
      }
      asked = undefined;
      let res: OpenerResponse;
      try {
        const request = {
          url: this.#url,
          method: "POST" as const,
          // A copy for an opener of the caller's, which might change it; the default one only reads it.
          headers: opener === undiciOpener ? this.#headers : { ...this.#headers },
          body: text,
          timeout,
        };
        res = await (signal ? raceAbort(opener({ ...request, signal }), signal) : opener(request));
      } catch (error) {
        if (signal?.aborted) throw abortErrorOf(signal);
        cause = this.#clean(networkCause(error));
        causeId = undefined;
        continue;
      }
      const { status, body } = res;
      const id = this.#requestId(res.headers);
      const tag = requestTag(id);
      if (status >= 200 && status < 300) {
        const answered = this.#read(body, elapsedMicros(started), id);
        if (typeof answered === "string") {
          // An empty or unreadable 200 (a proxy while its backend restarts): retried like a broken connection.
          cause = answered + tag;
          causeId = id;
          continue;
        }
        this.#count(answered.usage, answered.cost);
        return answered;
      }
      if (status >= 300 && status < 400) {
        throw new ServiceError(this.#redirected(status, res, tag), status, this.endpoint, id);
      }
      const detail = this.#clean(errorText(body));
      const said = `${detail ? `HTTP ${status} ${detail}` : `HTTP ${status}`}${tag}`;
      if (status >= 500 || RETRY_STATUS.has(status)) {
        cause = said;
        causeId = id;
        if (status === 429 || status === 503) asked = retryAfterSeconds(res.headers);
        continue;
      }
      if (REFUSED_STATUS.has(status)) {
        throw new EscalationError(`the decision service refused the request: ${said}`, id);
      }
      throw new ServiceError(
        `the decision service at ${this.endpoint} answered ${said}; check the API key, the model name and the URL`,
        status,
        this.endpoint,
        id,
      );
    }
    throw new EscalationError(
      `the decision service did not answer after ${retries + 1} attempts: ${cause}`,
      causeId,
    );
  }

  /** Waits between attempts; the default timer is cleared when the signal aborts. */
  #sleep(seconds: number, signal: AbortSignal | undefined): Promise<void> {
    const { sleep } = this.#settings;
    if (!signal) return sleep(seconds);
    throwIfAborted(signal);
    return sleep === realSleep ? abortableSleep(seconds, signal) : raceAbort(sleep(seconds), signal);
  }

  #requestId(headers: OpenerResponse["headers"] | undefined): string | undefined {
    const id = requestIdOf(headers);
    return id === undefined ? undefined : this.#clean(id);
  }

  /** A 3xx: never followed (a key must not travel to another address); the message names where it points. */
  #redirected(status: number, res: OpenerResponse, tag: string): string {
    const location = headerValue(res.headers?.location);
    let origin: string | undefined;
    if (location !== undefined) {
      try {
        const target = new URL(location, this.#url).origin;
        if (target !== "null") origin = target;
      } catch {
        origin = undefined;
      }
    }
    const detail = this.#clean(errorText(res.body));
    const said = origin
      ? `HTTP ${status}, a redirect to ${this.#clean(origin)}`
      : `HTTP ${status}${detail ? ` ${detail}` : " (a redirect without a usable Location)"}`;
    return `the decision service at ${this.endpoint} answered ${said}${tag}; the scorer does not follow redirects (an API key must not travel to another address): set the base URL to the address the service answers at`;
  }

  /**
   * A 200's text read once: the parsed reply (a gateway envelope's result), and its usage and cost for the
   * totals and the records. An empty or non-JSON text gives the cause to retry with; a gateway error in the
   * body, or JSON that is no object, escalates.
   */
  #read(text: string, micros: number, requestId?: string): Answered | string {
    let doc: unknown;
    try {
      doc = parseLenientJson(text);
    } catch (error) {
      if (text.trim() === "") return "the reply was empty (HTTP 200 without a body)";
      // Never V8's message: it quotes the start of the body, which may echo a key.
      const at = /position (\d+)/.exec((error as Error).message)?.[1];
      return `the reply is not JSON${at === undefined ? "" : ` (at character ${at})`}`;
    }
    const tag = requestTag(requestId);
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
      throw new EscalationError(`invalid decision output: the reply is not a JSON object${tag}`, requestId);
    }
    const unwrapped = unwrapReply(doc as Reply, text);
    if (unwrapped.error !== undefined) {
      throw new EscalationError(
        `the decision service answered with an error: ${this.#clean(unwrapped.error)}${tag}`,
        requestId,
      );
    }
    const reply = unwrapped.reply;
    const answered: Answered = {
      reply,
      text,
      micros,
      ms: micros / 1000,
      usage: readUsage(reply),
      cost: readCost(reply),
    };
    if (requestId !== undefined) answered.requestId = requestId;
    return answered;
  }

  #clean(text: string): string {
    return redact(text, this.#apiKey);
  }

  /** What util.inspect and JSON show of a scorer: never the key. */
  toJSON(): Record<string, unknown> {
    return { endpoint: this.endpoint, model: this.model, fingerprint: this.fingerprint };
  }
}

/** How a reason or an error quotes the reply's request id. */
function requestTag(id: string | undefined): string {
  return id === undefined ? "" : ` (request id ${id})`;
}

/** A request body's JSON text; an OrderedState state is written as its own text. */
function bodyText(body: Record<string, unknown>): string {
  const state = body.state;
  if (!(state instanceof OrderedState)) return JSON.stringify(body);
  const marker = `\u0000state-${Math.random()}`;
  return JSON.stringify({ ...body, state: marker }).replace(JSON.stringify(marker), () => state.json);
}

function withInvalidAsEscalation<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof InvalidOutput)
      throw new EscalationError(`invalid decision output: ${error.message}`);
    throw error;
  }
}

function escalated(item: NormalItem, reason: string, record: DecisionRecord): ItemScore {
  return { logits: new Array(item.options.length).fill(0), escalate: reason, record: { ...record } };
}

function reasoningOf(item: NormalItem, id: string, all: Record<string, unknown> | undefined) {
  if (typeof all !== "object" || all === null) return undefined;
  if (item.kind !== "multi") return readReasoning(all[id]);
  const per: Record<string, Reasoning> = {};
  item.options.forEach((opt, j) => {
    const r = readReasoning(all[`${id}__${j}`]);
    if (r) per[opt.name] = r;
  });
  const ns = readReasoning(all[`${id}__ns`]);
  if (ns) per["not stated"] = ns;
  return Object.keys(per).length ? per : undefined;
}

function networkCause(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "timeout":
    case "reset":
    case "incomplete read":
    case "refused":
    case "network":
      return message || String(code);
    case "ECONNRESET":
      return `connection reset (${message})`;
    case "ECONNREFUSED":
      return "connection refused";
    case "ETIMEDOUT":
      return `timed out (${message})`;
    default:
      return `network error: ${message}`;
  }
}

function checkState(state: unknown): void {
  if (state === undefined || state === null || (typeof state !== "string" && typeof state !== "object")) {
    throw new ValueError(
      `state must be a string, an object or a list, got ${state === null ? "null" : typeof state}`,
    );
  }
}

function elapsed(started: number): number {
  return elapsedMicros(started) / 1000;
}

function elapsedMicros(started: number): number {
  return Math.round((performance.now() - started) * 1000);
}
