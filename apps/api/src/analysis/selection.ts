/** How a fit chose its method, in words a user reads: who chose, on which data, and with what verdict. */

import type { Method } from "@decision-workbench/calibration";
import type { Selection } from "../shapes/calibrations.js";

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
