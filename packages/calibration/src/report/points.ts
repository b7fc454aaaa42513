import type { EngineMetric, RunItems } from "../bootstrap/engine.js";
import { ece, mce } from "../metrics/ece.js";

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
  return {
    accuracy: acc / n,
    nll: nll / n,
    brier: brier / n,
    ece: ece(top, { bins }),
    eceMass: ece(top, { bins, binning: "mass" }),
    mce: mce(top, { bins }),
  };
}
