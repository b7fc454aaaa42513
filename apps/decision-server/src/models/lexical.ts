/**
 * The zero-shot `lexical` model: word overlap between the state and each option's name and description
 * (and the question's own words for yes/no and "not stated"), turned into probabilities. Weak and honest.
 */

import { LRUCache } from "lru-cache";
import type { OptionSpec, Question } from "../request/types.js";
import { contentWords } from "../text/stem.js";
import { scanText } from "../text/tokenize.js";
import { isNotStated, parseNoul } from "./noul-text.js";
import type { StateView } from "./state-view.js";
import type { DecisionModel, Prediction } from "./types.js";

/** Sharpness of the softmax over relevance scores. */
const BETA = 1.5;

type Terms = Map<string, number>;

interface Plan {
  /** Scored options (for noul: the one option asked about, or yes/no descriptions). */
  options: { name: string; terms: Terms }[];
  /** Index of the `not stated` option in the question's options, or -1. */
  notStated: number;
  /** Content stems of the item's question. */
  questionStems: string[];
  kind: "choice" | "option" | "not-stated" | "plain" | "binary";
}

/** Question plans by question, the 5,000 last used (one for plain noul questions, keyed by instructions). */
const planCache = new LRUCache<string, Plan>({ max: 5000 });

function stems(text: string | null): string[] {
  return text ? contentWords(scanText(text).words) : [];
}

function termsOf(option: OptionSpec): Terms {
  const terms: Terms = new Map();
  for (const s of stems(option.description)) terms.set(s, 1);
  for (const s of stems(option.name)) terms.set(s, 2);
  return terms;
}

/** Weights each term by how few options share it (an inverse document frequency over the options). */
function weightByRarity(all: Terms[]): void {
  const df = new Map<string, number>();
  for (const t of all) for (const s of t.keys()) df.set(s, (df.get(s) ?? 0) + 1);
  const k = all.length;
  for (const t of all) for (const [s, w] of t) t.set(s, w * Math.log(1 + k / (df.get(s) ?? 1)));
}

function buildPlan(q: Question): Plan {
  if (q.type !== "noul") {
    const notStated = q.options.findIndex((o) => isNotStated(o.name, o.description));
    const options = q.options.map((o, i) => ({
      name: o.name,
      terms: i === notStated ? new Map() : termsOf(o),
    }));
    weightByRarity(options.filter((_, i) => i !== notStated).map((o) => o.terms));
    return { options, notStated, questionStems: stems(q.instructions), kind: "choice" };
  }
  if (q.yes !== undefined || q.no !== undefined) {
    const options = [
      { name: "true", terms: termsOf({ name: "", description: q.yes ?? null }) },
      { name: "false", terms: termsOf({ name: "", description: q.no ?? null }) },
    ];
    weightByRarity(options.map((o) => o.terms));
    return { options, notStated: -1, questionStems: stems(q.instructions), kind: "binary" };
  }
  const ask = parseNoul(q.instructions);
  const questionStems = stems(ask.question);
  if (ask.kind === "option") {
    const terms = termsOf({ name: ask.name, description: ask.description });
    return { options: [{ name: ask.name, terms }], notStated: -1, questionStems, kind: "option" };
  }
  return { options: [], notStated: -1, questionStems, kind: ask.kind };
}

const noulPlanCache = new LRUCache<string, Plan>({ max: 5000 });

function cached(cache: LRUCache<string, Plan>, key: string, q: Question): Plan {
  let plan = cache.get(key);
  if (!plan) {
    plan = buildPlan(q);
    cache.set(key, plan);
  }
  return plan;
}

function planFor(q: Question): Plan {
  if (q.type === "noul" && q.yes === undefined && q.no === undefined) {
    return cached(noulPlanCache, q.instructions, q);
  }
  let key = `${q.type}\u0000${q.instructions}\u0000${q.yes}\u0000${q.no}`;
  for (const o of q.options) key += `\u0000${o.name}\u0001${o.description}`;
  return cached(planCache, key, q);
}

/** Relevance of weighted terms to the state, and the terms that matched. */
function relevance(terms: Terms, state: Map<string, number>): { score: number; matched: string[] } {
  let hit = 0;
  let total = 0;
  const matched: string[] = [];
  for (const [s, w] of terms) {
    total += w;
    const n = state.get(s);
    if (n) {
      hit += w * (1 + Math.log(n));
      matched.push(s);
    }
  }
  return { score: total > 0 ? hit / Math.sqrt(total) : 0, matched };
}

/** Share of the question's content words found in the state (0.5 when the question has none). */
function coverage(questionStems: string[], state: Map<string, number>): number {
  if (questionStems.length === 0) return 0.5;
  let found = 0;
  for (const s of questionStems) if (state.has(s)) found++;
  return found / questionStems.length;
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function softmax(logits: number[]): number[] {
  const m = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

/** Answers one question from word overlap alone. */
export function lexicalPredict(view: StateView, q: Question, explain: boolean): Prediction {
  const plan = planFor(q);
  const state = view.stems;
  const describeMatches = (name: string, matched: string[]): string =>
    matched.length > 0
      ? `'${name}' matched ${matched
          .slice(0, 5)
          .map((m) => view.sourceOf(m))
          .join(", ")}`
      : `'${name}' matched nothing`;
  const cov = coverage(plan.questionStems, state);
  const covText = `the question's words found in the input: ${Math.round(cov * 100)}%`;
  if (plan.kind === "option") {
    const r = relevance(plan.options[0].terms, state);
    const p = sigmoid(2 * BETA * r.score - 1.5);
    return {
      probs: [p],
      reasoning: explain ? `lexical: ${describeMatches(plan.options[0].name, r.matched)}` : undefined,
    };
  }
  if (plan.kind === "not-stated") {
    return { probs: [sigmoid(3 * (0.4 - cov))], reasoning: explain ? `lexical: ${covText}` : undefined };
  }
  if (plan.kind === "plain") {
    return { probs: [sigmoid(3 * (cov - 0.4))], reasoning: explain ? `lexical: ${covText}` : undefined };
  }
  const rel = plan.options.map((o, i) => (i === plan.notStated ? null : relevance(o.terms, state)));
  let best = 0;
  for (const r of rel) if (r && r.score > best) best = r.score;
  const logits = rel.map((r) => (r ? BETA * r.score : BETA * (0.6 - best) - cov));
  const probs = softmax(logits);
  if (!explain) return { probs: plan.kind === "binary" ? [probs[0]] : probs };
  const parts = plan.options
    .map((o, i) => (rel[i] ? describeMatches(o.name, rel[i].matched) : null))
    .filter((s): s is string => s !== null);
  if (plan.notStated >= 0) parts.push(covText);
  return { probs: plan.kind === "binary" ? [probs[0]] : probs, reasoning: `lexical: ${parts.join("; ")}` };
}

/** The lexical model as a DecisionModel. */
export const lexicalModel: DecisionModel = {
  name: "lexical",
  description:
    "zero-shot word overlap between the input and each option's name and description; answers any question, weakly",
  predict: lexicalPredict,
};
