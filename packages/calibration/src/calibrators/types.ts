import type { Binary, Labelled, MultiLabel, ProbMatrix } from "../types.js";

/** Plain JSON, the only thing calibrator params are made of. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every calibrator: fit(data) -> params (plain JSON), apply(params, probabilities) -> probabilities. */
export interface Calibrator<D, P, M> {
  readonly name: string;
  fit(data: D): P;
  apply(params: P, input: M): Float64Array;
}

/** A calibrator of multiclass questions: N x K probabilities in, N x K probabilities out. */
export type MulticlassCalibrator<P = unknown> = Calibrator<Labelled, P, ProbMatrix>;

/** A calibrator of one binary problem: N probabilities in, N probabilities out. */
export type BinaryCalibrator<P = unknown> = Calibrator<Binary, P, ArrayLike<number>>;

/** A calibrator of multi-label questions: every label calibrated on its own, N x K in and out. */
export type MultiLabelCalibrator<P = unknown> = Calibrator<MultiLabel, P, ProbMatrix>;

/** Params may carry warnings about the fit (too few items, degenerate data), kept with them in the file. */
export interface FitWarnings {
  warnings?: string[];
}
