/** The start page: every run with its headline numbers, or the first-run call to action. */

import type { RunSummary } from "@decision-workbench/api/shapes";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { useRuns } from "../api/runs";
import { NewRunForm } from "../components/NewRunForm";
import { ErrorState, Loading } from "../components/States";
import { StatusBadge } from "../components/StatusBadge";
import { count, pct, usd, when } from "../transforms/format";
import { servedByLabel } from "../transforms/servedBy";

function FirstRun() {
  return (
    <div className="page">
      <section className="hero" aria-labelledby="first-run">
        <h1 id="first-run">Start your first run</h1>
        <p className="lead">
          Does “90% sure” mean 90% right? Run a bundled labelled dataset through the embedded reference
          server, look at how its confidence matches its accuracy, then fit and download a calibration file.
        </p>
        <ol className="steps">
          <li>
            <strong>Start the run</strong> below (pre-filled; it takes a few seconds).
          </li>
          <li>
            <strong>Read the charts</strong>: reliability, confidence, unknowns, confusion.
          </li>
          <li>
            <strong>Fit a calibration</strong> and download the file.
          </li>
        </ol>
      </section>
      <section className="panel">
        <NewRunForm submitLabel="Start your first run" />
      </section>
    </div>
  );
}

/** How much of a note the list shows. */
const NOTE_SHOWN = 140;

/** A note's first line, cut at NOTE_SHOWN characters with an ellipsis (the whole note is on the run's page). */
function shortNote(note: string): string {
  const line = note.split("\n")[0];
  const chars = [...line];
  if (chars.length <= NOTE_SHOWN) return line;
  return `${chars
    .slice(0, NOTE_SHOWN - 1)
    .join("")
    .trimEnd()}…`;
}

function RunRow({ run, selected, onToggle }: { run: RunSummary; selected: boolean; onToggle: () => void }) {
  const active = run.status === "running" || run.status === "queued";
  const done = run.progress.total ? run.progress.done / run.progress.total : 0;
  return (
    <tr>
      <td>
        <input
          type="checkbox"
          checked={selected}
          onChange={onToggle}
          aria-label={`Select ${run.name ? `${run.name} (${run.id})` : run.id} to compare`}
        />
      </td>
      <td style={{ minWidth: "12rem", maxWidth: "22rem", overflowWrap: "anywhere" }}>
        {run.name ? (
          <Link to={`/runs/${run.id}`}>
            <strong>{run.name}</strong>
          </Link>
        ) : (
          <Link to={`/runs/${run.id}`} className="mono">
            {run.id}
          </Link>
        )}
        {run.note && (
          <div className="small" title={shortNote(run.note) === run.note ? undefined : run.note}>
            {shortNote(run.note)}
          </div>
        )}
        <div className="muted small">
          {run.name && <span className="mono">{run.id} · </span>}
          <span style={{ whiteSpace: "nowrap" }}>{when(run.createdAt)}</span>
          {run.createdBy ? ` by ${run.createdBy}` : null}
        </div>
      </td>
      <td>{run.dataset}</td>
      <td>{run.serverName}</td>
      <td className="mono">{run.model}</td>
      <td className="mono">
        {run.servedBy.length ? servedByLabel(run.servedBy) : <span className="muted">—</span>}
      </td>
      <td>
        <StatusBadge status={run.status} />
        {active && (
          <div className="small muted">
            {pct(done, 0)} of {count(run.progress.total)}
          </div>
        )}
        {run.error && <div className="small field-error">{run.error}</div>}
      </td>
      <td className="num">
        {pct(run.headline.accuracy)}
        {run.headline.n !== undefined && run.headline.accuracy !== null && (
          <div className="small muted">
            {count(Math.round(run.headline.accuracy * run.headline.n))}/{count(run.headline.n)}
          </div>
        )}
      </td>
      <td className="num">{pct(run.headline.ece)}</td>
      <td className="num">{usd(run.progress.cost)}</td>
    </tr>
  );
}

/** The page. */
export default function RunsPage() {
  const runs = useRuns();
  const [selected, setSelected] = useState<string[]>([]);
  const navigate = useNavigate();
  if (runs.error && !runs.data)
    return (
      <ErrorState error={runs.error} title="The runs could not be loaded" retry={() => runs.refetch()} />
    );
  if (!runs.data) return <Loading label="Loading runs…" />;
  if (runs.data.length === 0) return <FirstRun />;
  const toggle = (id: string) =>
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  return (
    <div className="page">
      <div className="page-head">
        <h1>Runs</h1>
        <div className="actions">
          <button
            type="button"
            className="button"
            disabled={selected.length < 2}
            onClick={() => navigate(`/compare?runs=${selected.join(",")}`)}
            title="Tick two or more runs on the same dataset"
          >
            Compare selected{selected.length ? ` (${selected.length})` : ""}
          </button>
          <Link to="/runs/new" className="button primary">
            New run
          </Link>
        </div>
      </div>
      <div className="table-scroll">
        <table className="table runs">
          <caption className="visually-hidden">Runs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Select</span>
              </th>
              <th scope="col">Run</th>
              <th scope="col">Dataset</th>
              <th scope="col">Server</th>
              <th scope="col">Model</th>
              <th scope="col">Served by</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Accuracy
              </th>
              <th scope="col" className="num">
                ECE
              </th>
              <th scope="col" className="num">
                Cost
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.data.map((r) => (
              <RunRow key={r.id} run={r} selected={selected.includes(r.id)} onToggle={() => toggle(r.id)} />
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        Accuracy (right of usable rows) and plain ECE (equal-width, 15 bins; biased upward, a run's page gives
        the bias-corrected value with its interval) over all items, on the test split when the run has one.
      </p>
      <p className="tip">
        Next steps: open a finished run and press <strong>Fit a calibration →</strong> to download a
        calibration file; tick two runs on the same dataset and press <strong>Compare selected</strong> to see
        what changed.
      </p>
    </div>
  );
}
