/** The Compare page's run picker: every run with its name, server, model, the models that served it and its date. */

import type { RunSummary } from "@decision-workbench/api/shapes";
import { Link } from "react-router";
import { runTitle } from "../transforms/compare";
import { pct, when } from "../transforms/format";
import { servedByLabel } from "../transforms/servedBy";
import { StatusBadge } from "./StatusBadge";

/**
 * Ticks the runs to compare. Once one is ticked, only finished runs of its dataset can join it. At narrow widths
 * each run is a stacked card (see `.compare-stack` in styles.css).
 */
export function CompareRunPicker({
  runs,
  chosen,
  onToggle,
}: {
  runs: RunSummary[];
  chosen: string[];
  onToggle: (id: string) => void;
}) {
  const first = runs.find((r) => r.id === chosen[0]);
  return (
    <fieldset className="panel run-picker">
      <legend>
        Runs to compare{" "}
        {first
          ? `(same dataset as ${runTitle(first)}: ${first.dataset})`
          : "(pick two or more on the same dataset)"}
      </legend>
      <div className="compare-box">
        <table className="table compact compare-stack">
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Compare</span>
              </th>
              <th scope="col">Run</th>
              <th scope="col">Server</th>
              <th scope="col">Model</th>
              <th scope="col">Served by</th>
              <th scope="col">Date</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Accuracy, all items
              </th>
              <th scope="col" className="num">
                ECE, all items
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => {
              const disabled = (!!first && r.dataset !== first.dataset) || r.status !== "done";
              const ticked = chosen.includes(r.id);
              return (
                <tr
                  key={r.id}
                  className={disabled ? "disabled" : ticked ? "chosen" : undefined}
                  data-run={r.id}
                >
                  <td className="compare-tick">
                    <input
                      type="checkbox"
                      checked={ticked}
                      disabled={disabled && !ticked}
                      onChange={() => onToggle(r.id)}
                      aria-label={`Compare ${runTitle(r)} (${r.id}, ${r.serverName}, ${when(r.createdAt)})`}
                    />
                  </td>
                  <td data-label="Run" className="compare-run compare-wide">
                    <Link to={`/runs/${r.id}`}>{runTitle(r)}</Link>
                    <div className="muted small mono">{r.id}</div>
                  </td>
                  <td data-label="Server">{r.serverName || r.serverId}</td>
                  <td data-label="Model" className="mono">
                    {r.model}
                  </td>
                  <td data-label="Served by" className="mono" title={r.servedBy.join(", ") || undefined}>
                    {servedByLabel(r.servedBy)}
                  </td>
                  <td data-label="Date">{when(r.createdAt)}</td>
                  <td data-label="Status">
                    <StatusBadge status={r.status} />
                  </td>
                  <td data-label="Accuracy, all items" className="num">
                    {pct(r.headline.accuracy)}
                  </td>
                  <td data-label="ECE, all items" className="num">
                    {pct(r.headline.ece)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </fieldset>
  );
}
