/** The verdict of checking a run against a calibration: pass or fail, why, and each question against the file. */
import type { RunCheck } from "@decision-workbench/api/shapes";
import { type CheckRow, checkVerdict, type Place } from "../transforms/check";
import { type CheckedFile, checkReasons } from "../transforms/checkReasons";
import { count } from "../transforms/format";
import { ScrollRegion } from "./ScrollRegion";

const PLACE_TEXT: Record<Place, string> = {
  inside: "inside",
  above: "above the interval",
  below: "below (better than recorded)",
  "no interval": "",
};

function Value({ value, place }: { value: string; place: Place }) {
  return (
    <>
      {value}
      {PLACE_TEXT[place] && (
        <span className={`small place place-${place.replace(" ", "-")}`}> · {PLACE_TEXT[place]}</span>
      )}
    </>
  );
}

function Row({ r }: { r: CheckRow }) {
  return (
    <tr className={r.ok ? undefined : "failed"}>
      <th scope="row">{r.question}</th>
      <td>{count(r.n)}</td>
      <td>
        <Value value={r.ece} place={r.ecePlace} />
      </td>
      <td>{r.eceInterval}</td>
      <td>
        <Value value={r.answeredError} place={r.errorPlace} />
      </td>
      <td>{r.answeredErrorInterval}</td>
      <td>{r.coverage}</td>
      <td>
        <span className={`badge ${r.ok ? "badge-done" : "badge-failed"}`}>{r.ok ? "✓ pass" : "✗ fail"}</span>
      </td>
    </tr>
  );
}

/**
 * The verdict; `file` is the calibration file checked against (what served its runs, its thresholds), to say what
 * the served model changed from and to word each reason with formatted numbers.
 */
export function CheckVerdict({
  report,
  calibrationId,
  file,
}: {
  report: RunCheck;
  calibrationId: string;
  file?: CheckedFile;
}) {
  const v = checkVerdict(report, file?.source.served_by);
  const reasons = checkReasons(report, file);
  return (
    <section
      className={`check-verdict ${v.ok ? "ok" : "fail"}`}
      aria-label="Check result"
      data-ready="check"
      data-verdict={v.ok ? "pass" : "fail"}
    >
      <p className="check-verdict-title" role="status">
        <span className={`badge ${v.ok ? "badge-done" : "badge-failed"}`}>{v.ok ? "✓ Pass" : "✗ Fail"}</span>{" "}
        <strong>{v.title}</strong>{" "}
        <span className="muted small">
          Run <span className="mono">{report.runId}</span> on the{" "}
          {report.split === "all" ? "all" : report.split} split against{" "}
          <span className="mono">{calibrationId}</span>.
        </span>
      </p>
      <dl className="facts">
        <div>
          <dt>Served model</dt>
          <dd className={v.servedModel.changed ? "field-error" : undefined}>{v.servedModel.text}</dd>
        </div>
        <div>
          <dt>Endpoint and model asked for</dt>
          <dd className={v.fingerprintChanged ? "field-error" : undefined}>
            {v.fingerprintChanged ? "Changed: the run's fingerprint differs from the file's." : "Unchanged."}
          </dd>
        </div>
      </dl>
      {reasons.length > 0 && (
        <div>
          <strong>Why it fails</strong>
          <ul className="error-details">
            {reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      )}
      {v.rows.length > 0 && (
        // the caption stays short (a caption is as wide as its table, cut off on a phone); the details wrap above
        <>
          <p className="muted small">
            Each question under the file's calibrator, against the intervals the file recorded (ECE: 95%
            bootstrap; answered-alone error: Clopper-Pearson).
          </p>
          <ScrollRegion label="Each question against the file">
            <table className="table">
              <caption>Each question against the file</caption>
              <thead>
                <tr>
                  <th scope="col">Question</th>
                  <th scope="col">Rows</th>
                  <th scope="col">Calibrated ECE</th>
                  <th scope="col">File's ECE interval</th>
                  <th scope="col">Answered-alone error</th>
                  <th scope="col">File's error interval</th>
                  <th scope="col">Answered alone</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {v.rows.map((r) => (
                  <Row key={r.question} r={r} />
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        </>
      )}
      {v.skipped.length > 0 && (
        <p className="muted small">
          Not checked (the run has no usable answers for them): {v.skipped.join(", ")}.
        </p>
      )}
    </section>
  );
}
