import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// The scikit-learn / scipy / numpy reference numbers written by fixtures/make_reference.py.

interface BinarySet {
  name: string;
  p: number[];
  y: number[];
}
interface MulticlassSet {
  name: string;
  k: number;
  probs: number[];
  gold: number[];
}
export interface Reference {
  versions: Record<string, string>;
  binary_sets: BinarySet[];
  multiclass_sets: MulticlassSet[];
  calibration_curve: {
    set: string;
    strategy: "uniform" | "quantile";
    bins: number;
    prob_true: number[];
    prob_pred: number[];
  }[];
  percentile_edges: { set: string; bins: number; edges: number[] }[];
  binary_scores: { set: string; brier_score_loss: number; log_loss: number }[];
  multiclass_scores: { set: string; log_loss: number }[];
  isotonic: {
    set: string;
    x_thresholds: number[];
    y_thresholds: number[];
    test: number[];
    predict_test: number[];
    predict_train: number[];
  }[];
  platt: {
    set: string;
    a: number;
    b: number;
    test: number[];
    predict_test: number[];
    predict_train: number[];
  }[];
  beta: { set: string; a: number; b: number; c: number; predict_train: number[] }[];
  temperature: { set: string; temperature: number; nll: number }[];
  intervals: {
    x: number;
    n: number;
    level: number;
    jeffreys: [number, number];
    clopper_pearson: [number, number];
    clopper_pearson_upper: number;
  }[];
  normal_quantiles: { p: number; z: number }[];
}

export const ref: Reference = JSON.parse(
  readFileSync(fileURLToPath(new URL("./fixtures/reference.json", import.meta.url)), "utf8"),
);

export function binarySet(name: string): { p: Float64Array; y: Uint8Array } {
  const s = ref.binary_sets.find((b) => b.name === name);
  if (!s) throw new Error(`no binary set ${name}`);
  return { p: Float64Array.from(s.p), y: Uint8Array.from(s.y) };
}

export function multiclassSet(name: string): { probs: Float64Array; k: number; gold: Int32Array } {
  const s = ref.multiclass_sets.find((b) => b.name === name);
  if (!s) throw new Error(`no multiclass set ${name}`);
  return { probs: Float64Array.from(s.probs), k: s.k, gold: Int32Array.from(s.gold) };
}

/** Largest absolute difference between two equally long arrays (Infinity when the lengths differ). */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}
