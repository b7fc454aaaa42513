import { performance } from "node:perf_hooks";
import { BodyWriter, questionIds, questionPrefix, questionSuffixes } from "./body.js";
import { LruCache } from "./cache.js";
import { CACHE_SIZE } from "./constants.js";
import { resolveTarget } from "./endpoint.js";
import { EscalationError, ServiceError, ValueError } from "./errors.js";
import { errorText } from "./errorText.js";
import { fingerprint } from "./fingerprint.js";
import type { NormalItem } from "./items.js";
import { normalizeItem } from "./items.js";
import { parseLenientJson } from "./json.js";
import { InvalidOutput, readAnswers, singleLogits } from "./logits.js";
import { undiciOpener } from "./opener.js";
import type { Settings } from "./options.js";
import { checkModelAndKey, readSettings } from "./options.js";
import { buildQuestions } from "./questions.js";
import { redact } from "./redact.js";
import { readCost, readLatency, readReasoning, readServedBy, readUsage } from "./reply.js";
import type {
  DecisionRecord,
  Item,
  ItemScore,
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
  readonly #cache = new LruCache<{ text: string; micros: number }>(CACHE_SIZE);
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
  async request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new ValueError("request(body) takes an object with model, state and questions");
    }
    return (await this.#send(JSON.stringify({ ...this.#settings.extraBody, ...body }))).reply;
  }

  /**
   * The batch call: one request for all the items of one input; per item its logits or escalation, and its
   * record. Answered requests are cached by body; `{ cache: false }` asks the service again.
   */
  async score(state: State, items: Item[], options: { cache?: boolean } = {}): Promise<ItemScore[]> {
    const fresh = options.cache === false;
    checkState(state);
    if (!Array.isArray(items) || items.length === 0) {
      throw new ValueError("score(state, items) needs a non-empty list of items");
    }
    const normal = items.map(normalizeItem);
    const { text, key, count } = this.#body.write(state, normal);
    const started = performance.now();
    let answered: Answered;
    try {
      const hit = fresh ? undefined : this.#cache.get(key);
      const pending = fresh || hit ? undefined : this.#inflight.get(key);
      if (hit) answered = this.#read(hit.text, hit.micros);
      else if (pending) answered = await pending;
      else if (fresh) answered = await this.#send(text);
      else {
        // Identical asks arriving while this one is in flight share its call.
        const sent = this.#send(text);
        this.#inflight.set(key, sent);
        try {
          answered = await sent;
        } finally {
          this.#inflight.delete(key);
        }
      }
    } catch (error) {
      if (!(error instanceof EscalationError)) throw error;
      const record: DecisionRecord = {
        endpoint: this.endpoint,
        model: this.model,
        ms: elapsed(started),
        questions: count,
      };
      return normal.map((item) => escalated(item, error.reason, record));
    }
    const results = this.#readReply(normal, answered, count);
    for (const result of results) if (result.escalate !== undefined) return results;
    this.#cache.set(key, { text: answered.text, micros: answered.micros });
    return results;
  }

  #count(usage: Usage | undefined, cost: number | undefined): void {
    if (usage) {
      this.#usage.input_tokens += usage.input_tokens ?? 0;
      this.#usage.output_tokens += usage.output_tokens ?? 0;
      this.#usage.reasoning_tokens += usage.reasoning_tokens ?? 0;
    }
    this.#cost += cost ?? 0;
  }

  #readReply(items: NormalItem[], { reply, ms, usage, cost }: Answered, questions: number): ItemScore[] {
    const base: DecisionRecord = { endpoint: this.endpoint, model: this.model, ms, questions };
    const servedBy = readServedBy(reply, this.model);
    if (servedBy !== undefined) base.served_by = servedBy;
    if (usage) base.usage = { ...usage };
    if (cost !== undefined) base.cost = cost;
    const latency = readLatency(reply);
    if (latency !== undefined) base.latency_ms = latency;
    const answers = reply.answers;
    const reasoning = reply.reasoning as Record<string, unknown> | undefined;
    const results: ItemScore[] = [];
    for (let i = 0; i < items.length; i++)
      results.push(this.#readItem(items[i], i, answers, reasoning, base));
    return results;
  }

  /** One item's output from the reply's answers, with its own copy of the record. */
  #readItem(
    item: NormalItem,
    i: number,
    answers: unknown,
    reasoning: Record<string, unknown> | undefined,
    base: DecisionRecord,
  ): ItemScore {
    const record: DecisionRecord = { ...base };
    const prefix = questionPrefix(i);
    const audit = reasoningOf(item, prefix, reasoning);
    if (audit) record.reasoning = audit;
    if (typeof answers !== "object" || answers === null || Array.isArray(answers)) {
      return escalated(item, "invalid decision output: the reply has no answers object", record);
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
      return escalated(item, `invalid decision output: ${error.message}`, record);
    }
  }

  /** One request with retries: backoff * 2^k seconds through `sleep` between attempts. */
  async #send(text: string): Promise<Answered> {
    const { retries, backoff, opener, sleep, timeout } = this.#settings;
    const started = performance.now();
    let cause = "";
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(backoff * 2 ** (attempt - 1));
      let status: number;
      let body: string;
      try {
        const res = await opener({
          url: this.#url,
          method: "POST",
          // A copy for an opener of the caller's, which might change it; the default one only reads it.
          headers: opener === undiciOpener ? this.#headers : { ...this.#headers },
          body: text,
          timeout,
        });
        status = res.status;
        body = res.body;
      } catch (error) {
        cause = this.#clean(networkCause(error));
        continue;
      }
      if (status >= 200 && status < 300) {
        const answered = this.#read(body, elapsedMicros(started));
        this.#count(answered.usage, answered.cost);
        return answered;
      }
      const detail = this.#clean(errorText(body));
      const said = detail ? `HTTP ${status} ${detail}` : `HTTP ${status}`;
      if (status >= 500 || RETRY_STATUS.has(status)) {
        cause = said;
        continue;
      }
      if (REFUSED_STATUS.has(status)) {
        throw new EscalationError(`the decision service refused the request: ${said}`);
      }
      throw new ServiceError(
        `the decision service at ${this.endpoint} answered ${said}; check the API key, the model name and the URL`,
        status,
        this.endpoint,
      );
    }
    throw new EscalationError(`the decision service did not answer after ${retries + 1} attempts: ${cause}`);
  }

  /** A reply's text read once: the parsed reply, and its usage and cost for the totals and the records. */
  #read(text: string, micros: number): Answered {
    const reply = this.#parse(text);
    return { reply, text, micros, ms: micros / 1000, usage: readUsage(reply), cost: readCost(reply) };
  }

  #parse(body: string): Reply {
    let reply: unknown;
    try {
      reply = parseLenientJson(body);
    } catch (error) {
      // Never V8's message: it quotes the start of the body, which may echo a key.
      const at = /position (\d+)/.exec((error as Error).message)?.[1];
      throw new EscalationError(
        `invalid decision output: the reply is not JSON${at === undefined ? "" : ` (at character ${at})`}`,
      );
    }
    if (typeof reply !== "object" || reply === null || Array.isArray(reply)) {
      throw new EscalationError("invalid decision output: the reply is not a JSON object");
    }
    return reply as Reply;
  }

  #clean(text: string): string {
    return redact(text, this.#apiKey);
  }

  /** What util.inspect and JSON show of a scorer: never the key. */
  toJSON(): Record<string, unknown> {
    return { endpoint: this.endpoint, model: this.model, fingerprint: this.fingerprint };
  }
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
