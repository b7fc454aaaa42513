/**
 * A checkpoint version as a DecisionModel: a question whose instructions and option names match a trained
 * target is answered by naive Bayes; any other question falls back to the lexical model.
 */

import { LRUCache } from "lru-cache";
import { lexicalPredict } from "../models/lexical.js";
import type { StateView } from "../models/state-view.js";
import type { DecisionModel, Prediction } from "../models/types.js";
import type { Question } from "../request/types.js";
import { type CompiledTarget, compileTarget, type Evidence, logScores, softmaxT } from "./compile.js";
import { questionKey } from "./targets.js";
import type { TrainedVersion } from "./train.js";
import type { VersionConfig } from "./versions.js";

interface Entry {
  target: CompiledTarget;
  label: string;
  dataset: string;
}

/** What a version has checkpoints for (for GET /v1/models). */
export interface CheckpointInfo {
  dataset: string;
  question: string;
  temperature: number;
}

function formatDelta(d: number): string {
  return (d >= 0 ? "+" : "") + d.toFixed(2);
}

/** Creates the model of one trained version. */
export function checkpointModel(
  config: VersionConfig,
  trained: TrainedVersion,
): DecisionModel & {
  checkpoints: CheckpointInfo[];
} {
  const index = new Map<string, Entry>();
  const checkpoints: CheckpointInfo[] = [];
  for (const ds of trained.datasets) {
    for (const t of ds.targets) {
      const target = compileTarget(t.stats, ds.vocab, config.smoothing, t.temperature);
      index.set(t.key, { target, label: t.label, dataset: ds.name });
      checkpoints.push({ dataset: ds.name, question: t.label, temperature: t.temperature });
    }
  }
  const keyCache = new LRUCache<string, string>({ max: 5000 });
  const noulKeyCache = new LRUCache<string, string>({ max: 5000 });

  function keyOf(q: Question): string {
    const cache = q.type === "noul" ? noulKeyCache : keyCache;
    let cacheKey = q.instructions;
    if (q.type !== "noul") {
      cacheKey = `${q.type}\u0000${cacheKey}`;
      for (const o of q.options) cacheKey += `\u0000${o.name}`;
    }
    let key = cache.get(cacheKey);
    if (key === undefined) {
      key = questionKey(q);
      cache.set(cacheKey, key);
    }
    return key;
  }

  function explainText(entry: Entry, probs: number[], evidence: Evidence[]): string {
    const order = probs.map((p, c) => [p, c]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    const [top, second] = [order[0][1], order[1]?.[1] ?? order[0][1]];
    const cls = entry.target.classes;
    const scored = evidence
      .map((e) => ({ label: e.label, d: e.delta[top] - e.delta[second] }))
      .filter((e) => e.d !== 0)
      .sort((a, b) => Math.abs(b.d) - Math.abs(a.d) || (a.label < b.label ? -1 : 1));
    const pro = scored.filter((e) => e.d > 0).slice(0, 5);
    const con = scored.filter((e) => e.d < 0).slice(0, 3);
    const list = (xs: typeof pro) => xs.map((e) => `${e.label} (${formatDelta(e.d)})`).join(", ") || "none";
    return (
      `${config.name} checkpoint ${entry.dataset}/${entry.label}: '${cls[top]}' over '${cls[second]}'` +
      (entry.target.temperature !== 1 ? ` (temperature ${entry.target.temperature.toFixed(2)})` : "") +
      `; for: ${list(pro)}; against: ${list(con)}`
    );
  }

  function predict(view: StateView, q: Question, explain: boolean): Prediction {
    const entry = index.get(keyOf(q));
    if (!entry) {
      const p = lexicalPredict(view, q, explain);
      if (explain) p.reasoning = `no ${config.name} checkpoint matches this question; ${p.reasoning}`;
      p.fallback = "lexical";
      return p;
    }
    const evidence: Evidence[] | undefined = explain ? [] : undefined;
    const classProbs = softmaxT(logScores(entry.target, view.features, evidence), entry.target.temperature);
    const reasoning = evidence ? explainText(entry, classProbs, evidence) : undefined;
    if (q.type === "noul") return { probs: [classProbs[0]], reasoning };
    const classes = entry.target.classes;
    return { probs: q.options.map((o) => classProbs[classes.indexOf(o.name)]), reasoning };
  }

  return { name: config.name, description: config.description, predict, checkpoints };
}
