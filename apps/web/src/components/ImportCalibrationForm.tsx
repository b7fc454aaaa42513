/**
 * Calibration file import: choose or paste the JSON; the API's validation errors listed one a line. The form takes
 * the focus (on its file chooser) when it appears, so a keyboard or screen reader user lands in the panel opened.
 */

import type { Calibration } from "@decision-workbench/api/shapes";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { ApiError } from "../api/client";
import { fileErrors, formatFileError, parseCalibrationText } from "../transforms/check";
import { FileOrTextField } from "./FileOrTextField";
import { ErrorState } from "./States";

/** The form; `onSubmit` gets the parsed file (a JSON object), and the API's answer comes back as `error` or `imported`. */
export function ImportCalibrationForm({
  onSubmit,
  submitting,
  error,
  imported,
}: {
  onSubmit: (file: Record<string, unknown>) => void;
  submitting?: boolean;
  error?: unknown;
  /** The calibration the last import stored. */
  imported?: Calibration;
}) {
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState<string | null>(null);
  const [local, setLocal] = useState<string | null>(null);
  const chooser = useRef<HTMLInputElement>(null);
  useEffect(() => chooser.current?.focus(), []);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = parseCalibrationText(text);
    if (!r.ok) {
      setLocal(r.error);
      return;
    }
    setLocal(null);
    onSubmit(r.file);
  };
  const problems = error instanceof ApiError ? fileErrors(error.details) : [];
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Import a calibration file">
      <FileOrTextField
        label="Calibration file (JSON)"
        error={local ?? undefined}
        hint={
          fileName ? (
            <>
              Read from <span className="mono">{fileName}</span>; edit it here before importing if you need
              to.
            </>
          ) : (
            "Choose the file “Download calibration file” saved, or paste its JSON (decision-workbench/calibration@1)."
          )
        }
        name="calibration"
        accept=".json,application/json"
        chooseLabel="Choose a calibration file"
        value={text}
        onChange={setText}
        onFileName={(name) => {
          setFileName(name);
          setLocal(null);
        }}
        chooserRef={chooser}
      />
      {problems.length > 0 ? (
        <div className="form-errors" role="alert">
          <strong>
            Not a valid calibration file:{" "}
            {problems.length === 1 ? "one problem" : `${problems.length} problems`}. Nothing was imported.
          </strong>
          <ol className="error-lines">
            {problems.map((p, i) => (
              <li key={i}>{formatFileError(p)}</li>
            ))}
          </ol>
        </div>
      ) : (
        error !== undefined &&
        error !== null && <ErrorState error={error} title="The calibration file was not imported" />
      )}
      {imported && !error && (
        <p className="check-result ok" role="status">
          <span>
            Imported as <strong className="mono">{imported.id}</strong>: {imported.file.source.dataset.name},
            served by {imported.file.source.served_by.join(", ") || "—"}, questions{" "}
            {Object.keys(imported.file.questions).join(", ")}. Check a run against it below.
          </span>
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={submitting}>
          {submitting ? "Importing…" : "Import calibration file"}
        </button>
      </div>
    </form>
  );
}
