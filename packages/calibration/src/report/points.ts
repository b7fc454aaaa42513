import { binSums } from "../binning/accumulate.js";
import type { EngineMetric, RunItems } from "../bootstrap/engine.js";
import { eceFromSums, mceFromSums } from "../metrics/ece.js";

/**
 * Sum of the values, in order. A loop with nothing after it but its result: V8 compiles a long loop while it runs, on
 * the first call, and code after it that needs type feedback (never run then) made every later call bail out of it.
 */
function sumOf(values: Float64Array | Uint8Array): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

/** Accuracy, NLL and Brier: means of the per-item quantities. Internal. */
export function meanMetrics(items: RunItems): { accuracy: number; nll: number; brier: number } {
  const n = items.conf.length;
  return { accuracy: sumOf(items.correct) / n, nll: sumOf(items.nll) / n, brier: sumOf(items.brier) / n };
}

/** Point values of the headline metrics from per-item quantities. Internal. */
export function pointMetrics(items: RunItems, bins: number): Record<EngineMetric, number> {
  const n = items.conf.length;
  const top = { p: items.conf, y: items.correct };
  const width = binSums(top, n, bins, "width");
  const mass = binSums(top, n, bins, "mass");
  return {
    ...meanMetrics(items),
    ece: eceFromSums(width, n),
    eceMass: eceFromSums(mass, n),
    mce: mceFromSums(width),
    mceMass: mceFromSums(mass),
  };
}
