/** The Compare page's metrics table: each run's values with intervals, and every other run's change vs the baseline. */

import type { Comparison } from "@decision-workbench/api/shapes";
import { compareRows } from "../transforms/compare";

/**
 * One row per metric, one column per run (the baseline first). Under each non-baseline value: its change, that run
 * minus the baseline, with the interval, and whether it is better, worse or no clear change.
 */
export function CompareMetrics({ data, titles }: { data: Comparison; titles: Map<string, string> }) {
  const title = (id: string) => titles.get(id) ?? id;
  const baseline = data.runs[0];
  return (
    <div className="compare-box">
      <table className="table compare-stack compare-metrics">
        <caption>
          Metrics with 95% intervals on the shared examples; each change is a run’s value minus the baseline’s
          (how its interval was obtained: under the table)
        </caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            {data.runs.map((r, i) => (
              <th key={r.id} scope="col" className="compare-col">
                {title(r.id)}
                <div className="muted small">{i === 0 ? "baseline" : `value · change vs baseline`}</div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {compareRows(data).map((row) => (
            <tr key={row.name} data-metric={row.name}>
              <th scope="row" className="compare-wide">
                {row.label}
              </th>
              {row.values.map((v, i) => {
                const d = row.deltas[i];
                const run = data.runs[i];
                return (
                  <td
                    key={run?.id ?? i}
                    data-label={`${title(run?.id ?? "")}${i === 0 ? " (baseline)" : ""}`}
                  >
                    {v}
                    {d && (
                      <div
                        className={`delta delta-${d.verdict}`}
                        title={`${title(run?.id ?? "")} vs ${title(baseline?.id ?? "")}: ${d.text}`}
                      >
                        {d.words}
                        {d.range && <span className="ci-interval">95% interval {d.range}</span>}
                      </div>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
