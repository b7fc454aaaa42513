/**
 * /runs/:id/calibrate?cal=&item=&import=1&check=&checkSplit=: fit calibrators, compare candidates, see before/after,
 * download the file; import a calibration file and check the run against an imported or fitted calibration.
 */

import type { Calibration, MaybeCI } from "@decision-workbench/api/shapes";
import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import {
  calibrationFileUrl,
  useCalibration,
  useCalibrations,
  useImportCalibration,
} from "../api/calibrations";
import { useDataset } from "../api/datasets";
import { useRun } from "../api/runs";
import { ReliabilityOverlay } from "../charts/ReliabilityDiagram";
import { CiText } from "../components/CiText";
import { DownloadLink } from "../components/DownloadLink";
import { ImportCalibrationForm } from "../components/ImportCalibrationForm";
import { ScrollRegion } from "../components/ScrollRegion";
import { Empty, ErrorState, Loading } from "../components/States";
import { calibrationItems, candidateRows, chosenSummary, newest } from "../transforms/calibrate";
import { formatDelta, pct, sig, when } from "../transforms/format";
import { overlaySeries } from "../transforms/reliability";
import { BeforeAfter } from "./calibrate/BeforeAfter";
import { CheckSection } from "./calibrate/CheckSection";
import { FitForm } from "./calibrate/FitForm";
import { LabelThresholds } from "./calibrate/LabelThresholds";
import { SelectionSummary } from "./calibrate/SelectionSummary";
import { useSearchPatch } from "./useSearchPatch";

/** Lower ECE than identity with an interval below zero is better; above zero worse. */
function deltaClass(d: MaybeCI): string {
  if (d[2] !== null && d[2] < 0) return "delta delta-better";
  if (d[1] !== null && d[1] > 0) return "delta delta-worse";
  return "delta delta-same";
}

function CalibrationView({
  cal,
  item,
  setItem,
}: {
  cal: Calibration;
  item?: string;
  setItem: (i: string) => void;
}) {
  const items = calibrationItems(cal);
  const current = item && items.includes(item) ? item : items[0];
  const rows = candidateRows(cal.candidates[current] ?? []);
  // predicted Unknown on held-out rows: vector scaling and per-option fits can move the argmax to `not stated`
  const showUnknown = rows.some((c) => c.unknownRate !== null && c.unknownRate !== undefined);
  const chosen = chosenSummary(cal, current);
  const params = chosen?.params;
  const before = cal.before[current] ?? [];
  const after = cal.after[current] ?? [];
  return (
    <section className="panel" aria-label="Calibration result" data-ready="calibration">
      <div className="page-head">
        <div>
          <h2>
            Calibration <span className="mono">{cal.id}</span>
          </h2>
          <p className="muted small">
            {when(cal.createdAt)} · fitted on {cal.file.source.fit_split},{" "}
            {cal.file.source.eval_split === "crossfit"
              ? "cross-fit estimates (one split)"
              : `evaluated on ${cal.file.source.eval_split}`}{" "}
            · served by <span className="mono">{cal.file.source.served_by.join(", ") || "—"}</span> ·{" "}
            <code>{cal.file.schema}</code>
          </p>
        </div>
        <DownloadLink
          className="button primary download"
          href={calibrationFileUrl(cal.id)}
          filename={`calibration-${cal.id}.json`}
        >
          Download calibration file
        </DownloadLink>
      </div>
      <div className="toolbar">
        <label htmlFor="calibration-item">Item</label>
        <select id="calibration-item" value={current} onChange={(e) => setItem(e.target.value)}>
          {items.map((i) => (
            <option key={i} value={i}>
              {i}
            </option>
          ))}
        </select>
        {chosen && (
          <span>
            Chosen: <strong>{chosen.method}</strong>
            {params && <span className="muted"> ({params})</span>}
            {chosen.minConfidence !== null && chosen.targetRisk !== null && (
              <>
                {" "}
                · escalate below confidence <strong>{sig(chosen.minConfidence)}</strong>, chosen for an error
                under {pct(chosen.targetRisk, 0)} on out-of-fold {cal.fit?.fitSplit ?? "fit"} data
              </>
            )}
            {chosen.minConfidence === null && chosen.targetRisk !== null && (
              <> · no threshold reaches {pct(chosen.targetRisk, 0)} error</>
            )}
          </span>
        )}
      </div>
      <SelectionSummary cal={cal} item={current} />
      <BeforeAfter cal={cal} item={current} />
      {rows.length ? (
        <>
          <h3 className="table-title" id="candidates-title">
            Candidates on{" "}
            {cal.selection?.[current]?.by === "selection-split"
              ? `the ${cal.selection[current].on} split`
              : `${cal.fit?.folds ?? 5}-fold cross-fits of ${cal.fit?.fitSplit ?? "the fit split"}`}
            , simplest first (95% bootstrap intervals); the evaluation split is never used to choose
          </h3>
          <ScrollRegion label="Candidates">
            <table className="table candidates" aria-labelledby="candidates-title">
              <thead>
                <tr>
                  <th scope="col">Method</th>
                  <th scope="col">NLL</th>
                  <th scope="col">Brier</th>
                  <th scope="col">ECE</th>
                  <th scope="col">Accuracy</th>
                  <th scope="col">ECE vs identity</th>
                  {showUnknown && <th scope="col">Unknown rate</th>}
                  <th scope="col">Auto’s paired rule</th>
                  <th scope="col">Warnings</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.method} className={c.chosen ? "chosen" : undefined}>
                    <th scope="row">
                      {c.method}
                      {c.chosen && <span className="badge badge-done"> chosen</span>}
                    </th>
                    <td>
                      <CiText ci={c.heldOut?.nll} unit="number" />
                    </td>
                    <td>
                      <CiText ci={c.heldOut?.brier} unit="number" />
                    </td>
                    <td>
                      <CiText ci={c.heldOut?.ece} unit="percent" />
                    </td>
                    <td>
                      <CiText ci={c.heldOut?.accuracy} unit="percent" />
                    </td>
                    <td className="small">
                      {c.delta && c.method !== "identity" ? (
                        <span className={deltaClass(c.delta.ece)}>
                          {formatDelta(c.delta.ece[0], "percent")}
                        </span>
                      ) : (
                        "—"
                      )}
                    </td>
                    {showUnknown && (
                      <td className="small">{c.unknownRate === null ? "—" : pct(c.unknownRate)}</td>
                    )}
                    <td className="small">
                      {c.heldOut ? (
                        c.outcome
                      ) : (
                        <span className={c.outcome.startsWith("not tried") ? "muted" : "field-error"}>
                          {c.outcome}
                        </span>
                      )}
                    </td>
                    <td className="small">{c.warnings?.length ? c.warnings.join("; ") : "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        </>
      ) : (
        <Empty title="No candidates for this item" />
      )}
      <LabelThresholds cal={cal} item={current} />
      {before.length > 0 && (
        <ReliabilityOverlay
          title={`Reliability of ${current} before and after`}
          description={
            chosen?.method === "identity"
              ? "Identity kept: before and after coincide."
              : cal.fit?.estimatedBy === "cross-fit"
                ? `Top-label reliability on ${cal.fit.fitSplit}, before (dashed) and after (out-of-fold cross-fit estimates).`
                : `Top-label reliability on ${cal.fit?.evalSplit ?? "the evaluation split"}, before (dashed) and after applying the chosen calibrator.`
          }
          series={overlaySeries([before, after], ["Before", `After (${chosen?.method ?? "calibrated"})`])}
        />
      )}
    </section>
  );
}

/** The page. */
export default function CalibratePage() {
  const { id } = useParams();
  const [sp] = useSearchParams();
  const run = useRun(id);
  const dataset = useDataset(run.data?.dataset);
  const list = useCalibrations(id);
  const calId = sp.get("cal") ?? newest(list.data)?.id;
  const cal = useCalibration(calId);
  const patch = useSearchPatch();
  const setParam = (k: string, v: string) => patch({ [k]: v }, { push: k === "cal" });
  const importFile = useImportCalibration();
  // the calibration fitted last on this page: the check section picks it, as it picks a file just imported
  const [fitted, setFitted] = useState<string>();
  const showImport = sp.get("import") === "1";
  if (run.error && !run.data)
    return (
      <div className="page">
        <ErrorState error={run.error} title="The run could not be loaded" retry={() => run.refetch()} />
      </div>
    );
  if (!run.data) return <Loading />;
  const r = run.data;
  return (
    <div className="page">
      <p className="crumbs">
        <Link to="/">Runs</Link> /{" "}
        <Link to={`/runs/${r.id}`} className="mono">
          {r.id}
        </Link>{" "}
        / Calibrate
      </p>
      <div className="page-head">
        <h1>
          Calibrate {r.dataset} on {r.model}
        </h1>
        <div className="actions">
          <button
            type="button"
            className="button"
            aria-expanded={showImport}
            onClick={() => patch({ import: showImport ? undefined : "1" })}
          >
            {showImport ? "Close import" : "Import calibration file"}
          </button>
        </div>
      </div>
      <p className="lead">
        Fit a calibrator on the stored answers of the calibration split (chosen there by cross-fitting, or
        forced by you), set an escalation threshold, and evaluate it once on the test split, which the choice
        never reads. Export it all as one file a team can apply to new answers; check a run against a
        calibration to see whether it still holds.
      </p>
      {showImport && (
        <section className="panel" aria-labelledby="import-heading">
          <h2 id="import-heading">Import a calibration file</h2>
          <ImportCalibrationForm
            submitting={importFile.isPending}
            error={importFile.error ?? undefined}
            imported={importFile.data}
            onSubmit={(file) => importFile.mutate(file)}
          />
        </section>
      )}
      {r.status !== "done" ? (
        <Empty
          title="The run is not done yet"
          action={
            <Link className="button" to={`/runs/${r.id}`}>
              Watch the run
            </Link>
          }
        >
          Calibrations are fitted on a finished run.
        </Empty>
      ) : (
        <section className="panel">
          <FitForm
            run={r}
            items={dataset.data?.items ?? []}
            onFitted={(c) => {
              setFitted(c.id);
              setParam("cal", c.id);
            }}
          />
        </section>
      )}
      {(list.data?.length ?? 0) > 1 && (
        <div className="toolbar calibration-picker">
          <label htmlFor="calibration-pick">Calibration</label>
          <select id="calibration-pick" value={calId} onChange={(e) => setParam("cal", e.target.value)}>
            {list.data?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.id} · {c.fit ? (c.fit.method === "auto" ? "auto" : `${c.fit.method} forced`) : "imported"}{" "}
                · {when(c.createdAt)}
              </option>
            ))}
          </select>
        </div>
      )}
      {list.error && <ErrorState error={list.error} title="The calibrations could not be listed" />}
      {cal.error && <ErrorState error={cal.error} title="The calibration could not be loaded" />}
      {calId && !cal.data && !cal.error && <Loading label="Loading the calibration…" />}
      {cal.data && (
        <CalibrationView
          cal={cal.data}
          item={sp.get("item") ?? undefined}
          setItem={(i) => setParam("item", i)}
        />
      )}
      {r.status === "done" && <CheckSection run={r} preferred={fitted ?? importFile.data?.id} />}
    </div>
  );
}
