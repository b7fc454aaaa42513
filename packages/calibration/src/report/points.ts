import { binSums } from "../binning/accumulate.js";
import type { EngineMetric, RunItems } from "../bootstrap/engine.js";
import { eceFromSums, mceFromSums } from "../metrics/ece.js";

/** Accuracy, NLL and Brier: means of the per-item quantities. Internal. */
export function meanMetrics(items: RunItems): { accuracy: number; nll: number; brier: number } {
  const n = items.conf.length;
  let acc = 0;
  let nll = 0;
  let brier = 0;
  for (let i = 0; i < n; i++) {
    acc += items.correct[i];
    nll += items.nll[i];
    brier += items.brier[i];
  }
  return { accuracy: acc / n, nll: nll / n, brier: brier / n };
}

/** Point values of the headline metrics from per-item quantities. Internal. */
export function pointMetrics(items: RunItems, bins: number): Record<EngineMetric, number> {
  const n = items.conf.length;
  let acc = 0;
  let nll = 0;
  let brier = 0;
  for (let i = 0; i < n; i++) {
    acc += items.correct[i];
    nll += items.nll[i];
    brier += items.brier[i];
  }
  const top = { p: items.conf, y: items.correct };
  const width = binSums(top, n, bins, "width");
  return {
    accuracy: acc / n,
    nll: nll / n,
    brier: brier / n,
    ece: eceFromSums(width, n),
    eceMass: eceFromSums(binSums(top, n, bins, "mass"), n),
    mce: mceFromSums(width),
  };
}
