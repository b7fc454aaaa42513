/**
 * Turns target statistics into a scoring model with precomputed log-likelihood tables: multinomial naive
 * Bayes over words (counts damped to 1 + ln n), Gaussian naive Bayes over numbers, categorical naive Bayes over short values, and a
 * Bernoulli model of which fields are present. A field absent from a state is left out of the likelihood;
 * its absence speaks only through the presence model.
 */

import { damp, type StateFeatures } from "./features.js";
import type { TargetStats } from "./stats.js";

/** Smoothing choices of a checkpoint version. */
export interface Smoothing {
  /** Additive (Laplace/Lidstone) smoothing of word and category counts. */
  alpha: number;
  /** Added to each class variance, as a share of the field's overall variance. */
  varianceShare: number;
}

/** A compiled target, ready to score states. */
export interface CompiledTarget {
  classes: string[];
  logPrior: Float64Array;
  words: Map<string, Float64Array>;
  numeric: { field: string; mean: Float64Array; logNorm: Float64Array; halfPrecision: Float64Array }[];
  categorical: { field: string; logp: Map<string, Float64Array>; unseen: Float64Array }[];
  presence: { field: string; present: Float64Array; absent: Float64Array }[];
  /** Logits are divided by this before the softmax. */
  temperature: number;
}

/** Builds the log-likelihood tables of a target. */
export function compileTarget(
  s: TargetStats,
  vocab: readonly string[],
  smoothing: Smoothing,
  temperature = 1,
): CompiledTarget {
  const k = s.classes.length;
  const { alpha } = smoothing;
  const total = s.classCount.reduce((a, b) => a + b, 0);
  const logPrior = Float64Array.from(s.classCount, (n) => Math.log((n + 1) / (total + k)));

  const wordTotals = new Float64Array(k);
  const counts = s.wordCounts;
  for (let i = 0; i < counts.length; i++) wordTotals[i % k] += counts[i];
  const words = new Map<string, Float64Array>();
  const logDenominator = Float64Array.from(wordTotals, (n) => Math.log(n + alpha * vocab.length));
  vocab.forEach((w, v) => {
    const row = new Float64Array(k);
    for (let c = 0; c < k; c++) row[c] = Math.log(counts[v * k + c] + alpha) - logDenominator[c];
    words.set(w, row);
  });

  const numeric = Object.entries(s.numeric).map(([field, st]) => {
    let n = 0;
    let sum = 0;
    for (let c = 0; c < k; c++) {
      n += st.n[c];
      sum += st.n[c] * st.mean[c];
    }
    const overallMean = n > 0 ? sum / n : 0;
    let ss = 0;
    for (let c = 0; c < k; c++) ss += st.m2[c] + st.n[c] * (st.mean[c] - overallMean) ** 2;
    const overallVar = n > 1 ? ss / (n - 1) : 1;
    const floor = Math.max(overallVar, 1e-12) * smoothing.varianceShare;
    const mean = new Float64Array(k);
    const logNorm = new Float64Array(k);
    const halfPrecision = new Float64Array(k);
    for (let c = 0; c < k; c++) {
      const has = st.n[c] >= 2;
      mean[c] = st.n[c] >= 1 ? st.mean[c] : overallMean;
      const v = (has ? st.m2[c] / st.n[c] : overallVar) + floor;
      logNorm[c] = -0.5 * Math.log(2 * Math.PI * v);
      halfPrecision[c] = 0.5 / v;
    }
    return { field, mean, logNorm, halfPrecision };
  });

  const categorical = Object.entries(s.categorical).map(([field, values]) => {
    const names = Object.keys(values);
    const seen = new Float64Array(k);
    for (const v of names) for (let c = 0; c < k; c++) seen[c] += values[v][c];
    const denominator = Float64Array.from(seen, (n) => n + alpha * (names.length + 1));
    const logp = new Map<string, Float64Array>();
    for (const v of names) {
      logp.set(
        v,
        Float64Array.from(values[v], (n, c) => Math.log((n + alpha) / denominator[c])),
      );
    }
    return { field, logp, unseen: Float64Array.from(denominator, (d) => Math.log(alpha / d)) };
  });

  const presence = Object.entries(s.present)
    .filter(([, row]) => row.some((n, c) => n < s.classCount[c]))
    .map(([field, row]) => ({
      field,
      present: Float64Array.from(row, (n, c) => Math.log((n + 1) / (s.classCount[c] + 2))),
      absent: Float64Array.from(row, (n, c) => Math.log((s.classCount[c] - n + 1) / (s.classCount[c] + 2))),
    }));

  return { classes: s.classes, logPrior, words, numeric, categorical, presence, temperature };
}

/** One piece of evidence: a feature and how much it moved each class's log-score. */
export interface Evidence {
  label: string;
  delta: Float64Array;
}

/** Unnormalised log-scores of each class (before the temperature); `evidence` collects each feature's part. */
export function logScores(t: CompiledTarget, f: StateFeatures, evidence?: Evidence[]): Float64Array {
  const k = t.classes.length;
  const out = Float64Array.from(t.logPrior);
  for (const [w, n] of f.words) {
    const row = t.words.get(w);
    if (!row) continue;
    const weight = damp(n);
    for (let c = 0; c < k; c++) out[c] += weight * row[c];
    if (evidence)
      evidence.push({ label: `'${w}'` + (n > 1 ? ` x${n}` : ""), delta: row.map((v) => v * weight) });
  }
  for (const g of t.numeric) {
    const x = f.numeric.get(g.field);
    if (x === undefined) continue;
    const delta = evidence ? new Float64Array(k) : undefined;
    for (let c = 0; c < k; c++) {
      const d = g.logNorm[c] - g.halfPrecision[c] * (x - g.mean[c]) ** 2;
      out[c] += d;
      if (delta) delta[c] = d;
    }
    if (evidence && delta) evidence.push({ label: `${g.field}=${x}`, delta });
  }
  for (const g of t.categorical) {
    const v = f.categorical.get(g.field);
    if (v === undefined) continue;
    const row = g.logp.get(v) ?? g.unseen;
    for (let c = 0; c < k; c++) out[c] += row[c];
    if (evidence) evidence.push({ label: `${g.field}=${v}`, delta: row });
  }
  for (const g of t.presence) {
    const has = f.present.has(g.field);
    const row = has ? g.present : g.absent;
    for (let c = 0; c < k; c++) out[c] += row[c];
    if (evidence && !has) evidence.push({ label: `${g.field} absent`, delta: row });
  }
  return out;
}

/** Softmax of log-scores divided by a temperature. */
export function softmaxT(scores: Float64Array, temperature: number): number[] {
  let m = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < scores.length; i++) if (scores[i] > m) m = scores[i];
  const out = new Array<number>(scores.length);
  let z = 0;
  for (let i = 0; i < scores.length; i++) {
    out[i] = Math.exp((scores[i] - m) / temperature);
    z += out[i];
  }
  for (let i = 0; i < out.length; i++) out[i] /= z;
  return out;
}
