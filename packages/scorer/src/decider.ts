import { DEFAULT_MAX_LEN, NOT_STATED, NOT_STATED_DESCRIPTION } from "./constants.js";
import { toDecision } from "./decisions.js";
import { ValueError } from "./errors.js";
import type { NormalItem } from "./items.js";
import { normalizeItem } from "./items.js";
import { readSettings } from "./options.js";
import { buildQuestions } from "./questions.js";
import { compareDecisions, recompute } from "./replay.js";
import { countUnits, estimateTokens, selectPassages, TOKENS_PER_UNIT } from "./retrieval.js";
import { DecisionScorer } from "./scorer.js";
import type {
  CallOptions,
  DeciderOptions,
  Decision,
  Item,
  ReplayDifference,
  ReplayReport,
  State,
  Usage,
} from "./types.js";

/** A decider over a decision service: decisions, not logits; escalation instead of guesses. */
export class DecisionDecider {
  /** The scorer underneath (usage, cost, fingerprint, batch calls). */
  readonly scorer: DecisionScorer;
  /** Replay re-runs requests (a local server with reproducible output) instead of checking the record. */
  readonly deterministic: boolean;
  /** Estimated tokens one request reads under long-document retrieval. */
  readonly maxLen: number;

  constructor(baseUrl: string, model: string, apiKey?: string | null, options: DeciderOptions = {}) {
    readSettings(options, true);
    const { deterministic, maxLen, ...scorerOptions } = options ?? {};
    this.scorer = new DecisionScorer(baseUrl, model, apiKey, scorerOptions);
    this.deterministic = deterministic ?? false;
    this.maxLen = maxLen ?? DEFAULT_MAX_LEN;
  }

  get fingerprint(): string {
    return this.scorer.fingerprint;
  }

  get endpoint(): string {
    return this.scorer.endpoint;
  }

  get usage(): Usage {
    return this.scorer.usage;
  }

  get cost(): number {
    return this.scorer.cost;
  }

  /** One question, one request. Aborting `options.signal` rejects with an AbortError. */
  async decide(state: State, item: Item, options: CallOptions = {}): Promise<Decision> {
    return (await this.decideAll(state, [item], options))[0];
  }

  /**
   * All the items of one input in one request (how a multi-label item's options travel). Aborting
   * `options.signal` rejects with an AbortError: no decision, nothing cached.
   */
  async decideAll(state: State, items: Item[], options: CallOptions = {}): Promise<Decision[]> {
    if (!Array.isArray(items) || items.length === 0) {
      throw new ValueError("decideAll(state, items) needs a non-empty list of items");
    }
    const normal = items.map(normalizeItem);
    const sent = this.retrieve(state, normal);
    const scored = await this.scorer.score(sent, items, options);
    return normal.map((item, i) => toDecision(item, scored[i]));
  }

  /** The state actually sent: a text over the budget is cut to its most relevant passages. */
  retrieve(state: State, items: NormalItem[]): State {
    if (typeof state !== "string") return state;
    let units = 0;
    for (const item of items) units += questionOf(item).units;
    const budget = this.maxLen - units * TOKENS_PER_UNIT; // the estimate of the items' texts joined by new lines
    // A text has no more units than characters: a short one is within the budget without being counted.
    if (state.length * TOKENS_PER_UNIT <= budget || estimateTokens(state) <= budget) return state;
    const query = items.map((item) => questionOf(item).text).join("\n");
    return selectPassages(state, query, Math.max(budget, this.maxLen / 4));
  }

  /**
   * Re-checks a recorded decision. deterministic false: recomputes it from its recorded output, no request.
   * deterministic true: asks the service again (never the cache) and compares. Reports, never throws.
   */
  async replay(decision: Decision, state: State, item: Item): Promise<ReplayReport> {
    const [report] = await this.replayAll([decision], state, [item]);
    return report;
  }

  /**
   * Re-checks the recorded decisions of one input made by one `decideAll(state, items)`: with deterministic
   * true, the same batch request is sent again (one request, as recorded; asking item by item could send
   * other passages of a long text, or other questions beside each one), and each decision compared.
   */
  async replayAll(decisions: Decision[], state: State, items: Item[]): Promise<ReplayReport[]> {
    if (!Array.isArray(decisions) || !Array.isArray(items) || decisions.length !== items.length) {
      throw new ValueError("replayAll(decisions, state, items) needs one recorded decision per item");
    }
    const normal = items.map(normalizeItem);
    const reports = decisions.map((decision, i) => {
      const record = decision?.extra?.decision;
      if (!record) throw new ValueError("replay needs a decision made by a decider (with extra.decision)");
      const differences: ReplayDifference[] = [];
      if (record.endpoint !== this.endpoint) {
        differences.push({ field: "endpoint", recorded: record.endpoint, now: this.endpoint });
      }
      if (record.model !== this.scorer.model) {
        differences.push({ field: "model", recorded: record.model, now: this.scorer.model });
      }
      if (!this.deterministic && decision.status !== "escalated") {
        const again = recompute(normal[i], decision);
        if (typeof again === "string") {
          differences.push({ field: "probabilities", recorded: decision.logits, now: null, detail: again });
        } else {
          differences.push(...compareDecisions(decision, again));
        }
      }
      return { ok: false, called: this.deterministic, differences };
    });
    if (this.deterministic) {
      const now = await this.decideAll(state, items, { cache: false });
      decisions.forEach((decision, i) => {
        const differences = reports[i].differences;
        differences.push(...compareDecisions(decision, now[i]));
        const before = decision.extra.decision.served_by;
        const after = now[i].extra.decision.served_by;
        if (now[i].status !== "escalated" && before !== after) {
          differences.push({
            field: "served_by",
            recorded: before ?? decision.extra.decision.model,
            now: after ?? this.scorer.model,
          });
        }
      });
    }
    for (const r of reports) r.ok = r.differences.length === 0;
    return reports;
  }
}

/** Builds a decider usable wherever a decision model is taken. */
export function decisionDecider(
  baseUrl: string,
  model: string,
  apiKey?: string | null,
  options: DeciderOptions = {},
): DecisionDecider {
  return new DecisionDecider(baseUrl, model, apiKey, options);
}

/** The text of an item's questions (what retrieval matches passages against) and its units, once per item. */
const questionTexts = new WeakMap<NormalItem, { text: string; units: number }>();

function questionOf(item: NormalItem): { text: string; units: number } {
  let known = questionTexts.get(item);
  if (!known) {
    // The criteria in the item's option order (an object would put integer-like names first).
    const criteria = (q: { criteria?: unknown }) =>
      q.criteria === undefined
        ? []
        : [
            ...item.options.flatMap((o) => [o.name, o.description]),
            ...(item.notStated ? [NOT_STATED, NOT_STATED_DESCRIPTION] : []),
          ];
    const text = Object.values(buildQuestions(item))
      .map((q) => [q.instructions, ...criteria(q)].filter(Boolean).join(" "))
      .join(" ");
    known = { text, units: countUnits(text) };
    questionTexts.set(item, known);
  }
  return known;
}
