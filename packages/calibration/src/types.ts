/** N x K probabilities, row-major: row i holds the K option probabilities of item i. */
export interface ProbMatrix {
  readonly probs: Float64Array;
  readonly k: number;
}

/** Multiclass predictions: N x K probabilities and the gold option index of each item. */
export interface Labelled extends ProbMatrix {
  readonly gold: ArrayLike<number>;
}

/** A binary problem: the probability of the positive outcome and the outcome (0 or 1) of each item. */
export interface Binary {
  readonly p: ArrayLike<number>;
  readonly y: ArrayLike<number>;
}

/** Multi-label predictions: N x K per-label probabilities and N x K labels (1 = the label applies, 0 = not). */
export interface MultiLabel extends ProbMatrix {
  readonly labels: ArrayLike<number>;
}

/** A headline number with its confidence interval: [point, low, high]. */
export type Estimate = [point: number, low: number, high: number];

/** Reliability binning: equal-width bins on [0, 1] or equal-mass (quantile) bins. */
export type Binning = "width" | "mass";

/** Options of every bootstrap: resample count (1000), seed (0) and interval level (0.95). */
export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  level?: number;
}
