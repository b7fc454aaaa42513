/** /compare?runs=a,b&item=&split=: runs overlaid, metrics with paired deltas, flipped items, served-model banner. */

import type { RunSummary } from "@decision-workbench/api/shapes";
import { Link, useSearchParams } from "react-router";
import { useCompare } from "../api/compare";
import { useDataset } from "../api/datasets";
import { useRuns } from "../api/runs";
import { ReliabilityOverlay } from "../charts/ReliabilityDiagram";
import { Empty, ErrorState, Loading } from "../components/States";
import { StatusBadge } from "../components/StatusBadge";
import { compareRows, servedBy, servedModelBanner } from "../transforms/compare";
import { count, label, pct, when } from "../transforms/format";
import { overlaySeries } from "../transforms/reliability";
import { readRunList, toggleRun } from "../transforms/urlState";
import { useSearchPatch } from "./useSearchPatch";

function RunPicker({
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
        {first ? `(same dataset as ${first.id}: ${first.dataset})` : "(pick two or more on the same dataset)"}
      </legend>
      <div className="table-scroll">
        <table className="table compact">
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Compare</span>
              </th>
              <th scope="col">Run</th>
              <th scope="col">Dataset</th>
              <th scope="col">Model</th>
              <th scope="col">Served by</th>
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
              return (
                <tr key={r.id} className={disabled ? "disabled" : undefined}>
                  <td>
                    <input
                      type="checkbox"
                      checked={chosen.includes(r.id)}
                      disabled={disabled && !chosen.includes(r.id)}
                      onChange={() => onToggle(r.id)}
                      aria-label={`Compare ${r.id} (${r.dataset}, ${r.model})`}
                    />
                  </td>
                  <td>
                    <Link className="mono" to={`/runs/${r.id}`}>
                      {r.id}
                    </Link>
                    <div className="muted small">{when(r.createdAt)}</div>
                  </td>
                  <td>{r.dataset}</td>
                  <td className="mono">{r.model}</td>
                  <td className="mono">{r.servedBy.join(", ") || "—"}</td>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td className="num">{pct(r.headline.accuracy)}</td>
                  <td className="num">{pct(r.headline.ece)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </fieldset>
  );
}

/** The page. */
export default function ComparePage() {
  const [sp] = useSearchParams();
  const chosen = readRunList(sp);
  const runs = useRuns();
  const firstRun = runs.data?.find((r) => r.id === chosen[0]);
  const dataset = useDataset(firstRun?.dataset);
  const items = dataset.data?.items ?? [];
  const item = sp.get("item") ?? items[0]?.name;
  const split = sp.get("split") ?? "test";
  const cmp = useCompare(chosen, { item, split });
  const set = useSearchPatch();
  const names = (cmp.data?.runs ?? []).map((r) => `${r.id} · ${r.model} → ${servedBy(r).join("+")}`);
  const banner = cmp.data ? servedModelBanner(cmp.data) : null;
  return (
    <div className="page">
      <h1>Compare runs</h1>
      <p className="lead">
        The same examples asked twice: did the calibration change, which answers flipped, and was the same
        model serving?
      </p>
      {runs.error && !runs.data ? (
        <ErrorState error={runs.error} retry={() => runs.refetch()} />
      ) : !runs.data ? (
        <Loading label="Loading runs…" />
      ) : runs.data.length < 2 ? (
        <Empty
          title="Two runs are needed"
          action={
            <Link className="button primary" to="/runs/new">
              Start a run
            </Link>
          }
        >
          Start a second run on the same dataset (for example with another model, or after the service swapped
          its weights) and compare them here.
        </Empty>
      ) : (
        <RunPicker
          runs={runs.data}
          chosen={chosen}
          onToggle={(id) => set({ runs: toggleRun(chosen, id).join(",") || undefined })}
        />
      )}
      {chosen.length >= 2 && (
        <>
          <div className="toolbar">
            <label>
              Item{" "}
              <select value={item ?? ""} onChange={(e) => set({ item: e.target.value })}>
                {items.map((i) => (
                  <option key={i.name} value={i.name}>
                    {i.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Split{" "}
              <select value={split} onChange={(e) => set({ split: e.target.value })}>
                {(firstRun?.splits ?? ["test"]).map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
            {cmp.isFetching && cmp.data && (
              <span className="muted small" role="status">
                Updating…
              </span>
            )}
          </div>
          {cmp.error && !cmp.data ? (
            <ErrorState
              error={cmp.error}
              title="The runs could not be compared"
              retry={() => cmp.refetch()}
            />
          ) : !cmp.data ? (
            <Loading label="Comparing on the shared examples (paired bootstrap)…" />
          ) : (
            <div data-ready="compare">
              {banner ? (
                <div className="banner banner-warning" role="alert" data-testid="served-model-banner">
                  <strong>Served model differs.</strong> {banner}
                </div>
              ) : (
                <div className="banner banner-info" role="status">
                  Every run was served by the same model (
                  {cmp.data.runs[0] ? servedBy(cmp.data.runs[0]).join(", ") : "—"}).
                </div>
              )}
              <ReliabilityOverlay
                title={`Reliability of ${item ?? "the item"}, ${split} split`}
                description="Top-label reliability of each run, equal-width bins."
                series={overlaySeries(cmp.data.bins, names)}
              />
              <div className="table-scroll">
                <table className="table">
                  <caption>
                    Metrics with 95% intervals on the shared examples; each change is the difference of the
                    values shown (how its interval was obtained: under the table)
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Metric</th>
                      {cmp.data.runs.map((r, i) => (
                        <th key={r.id} scope="col">
                          <span className="mono">{r.id}</span>
                          {i > 0 && (
                            <div className="muted small">value · change vs {cmp.data?.runs[0].id}</div>
                          )}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {compareRows(cmp.data).map((row) => (
                      <tr key={row.name}>
                        <th scope="row">{row.label}</th>
                        {row.values.map((v, i) => (
                          <td key={cmp.data?.runs[i]?.id ?? i}>
                            {v}
                            {row.deltas[i] && (
                              <div className={`delta delta-${row.deltas[i]?.verdict}`}>
                                {row.deltas[i]?.text}
                                {row.deltas[i]?.verdict !== "same"
                                  ? ` · ${row.deltas[i]?.verdict}`
                                  : " · no clear change"}
                              </div>
                            )}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {cmp.data.methods && (
                <p className="muted small">
                  Values: {cmp.data.methods.values}. Changes: {cmp.data.methods.deltas}.
                </p>
              )}
              <h2>Flipped answers ({count(cmp.data.flipped.total)})</h2>
              {cmp.data.flipped.rows.length === 0 ? (
                <Empty title="No answer flipped">
                  Every shared example got the same answer in every run.
                </Empty>
              ) : (
                <div className="table-scroll">
                  <table className="table compact">
                    <thead>
                      <tr>
                        <th scope="col">Example</th>
                        <th scope="col">Gold</th>
                        {cmp.data.runs.map((r) => (
                          <th key={r.id} scope="col" className="mono">
                            {r.id}
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {cmp.data.flipped.rows.map((f) => (
                        <tr key={f.exampleId}>
                          <td className="mono">{f.exampleId}</td>
                          <td>{label(f.gold)}</td>
                          {f.answers.map((a, i) => (
                            <td
                              key={cmp.data?.runs[i]?.id ?? i}
                              className={label(a) !== label(f.gold) ? "wrong" : undefined}
                            >
                              {label(a)}
                              {f.statuses[i] && f.statuses[i] !== "answered" && (
                                <span className="muted small"> ({f.statuses[i]})</span>
                              )}
                            </td>
                          ))}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </div>
          )}
        </>
      )}
    </div>
  );
}
