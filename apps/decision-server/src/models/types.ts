/** What every model of the server implements. */

import type { Question } from "../request/types.js";
import type { StateView } from "./state-view.js";

/** A model's answer to one question: choice/score probabilities in option order, or [P(yes)] for noul. */
export interface Prediction {
  probs: number[];
  /** Short evidence text, present when asked for. */
  reasoning?: string;
  /** The model that answered instead, when the one asked had nothing for this question (a checkpoint's fallback). */
  fallback?: string;
}

/** A model the server answers with. */
export interface DecisionModel {
  /** The name a request uses and the reply reports. */
  readonly name: string;
  readonly description: string;
  predict(view: StateView, question: Question, explain: boolean): Prediction;
}
