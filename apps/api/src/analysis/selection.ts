/** How a fit chose its method, in words a user reads: who chose, on which data, and with what verdict. */

import type { Method } from "@decision-workbench/calibration";

/** How one item's method was selected (API.md `Selection`). */
export interface Selection {
  /** "user": forced by the request; "cross-fit": k-fold cross-fitting inside the fit split; "selection-split": a third split. */
  by: "user" | "cross-fit" | "selection-split";
  /** The split the candidates were compared on (the fit split when cross-fitted). */
  on: string;
  /** Folds of the cross-fitting (absent for a selection split). */
  folds?: number;
  criterion: "nll" | "brier";
  /**
   * "forced": the user's method, no selection; "improvement": a more flexible method beat a simpler one (paired
   * 95 % interval of its NLL improvement above 0); "indistinguishable": it did not, the simpler one was kept;
   * "identity": no candidate beat the raw probabilities; "degenerate": the fit data cannot support a calibrator.
   */
  verdict: "forced" | "improvement" | "indistinguishable" | "identity" | "degenerate";
  /** One sentence: how the method was chosen and why (the library's note, prefixed with the data it was chosen on). */
  note: string;
}

/** Where the after-metrics come from: the evaluation split, or out-of-fold estimates on the fit split. */
export type EstimatedBy = "evaluation split" | "cross-fit";

/** The sentence a one-split fit carries: what cross-fit estimates cost. */
export function crossFitCost(fitSplit: string): string {
  return `one split: the after-metrics are cross-fit estimates on the ${fitSplit} split, not untouched held-out data (the method, threshold and metrics all come from the same rows, so they are optimistic)`;
}

/** "chosen by 5-fold cross-fitting on calibration" / "chosen on the train split" / "forced by the user". */
export function selectedHow(s: Pick<Selection, "by" | "on" | "folds">, method: Method): string {
  if (s.by === "user") return `${method} forced by the user (no selection)`;
  if (s.by === "selection-split") return `chosen on the separate ${s.on} split`;
  return `chosen by ${s.folds ?? 5}-fold cross-fitting on ${s.on}`;
}
